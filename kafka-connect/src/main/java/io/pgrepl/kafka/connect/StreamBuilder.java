package io.pgrepl.kafka.connect;

import io.pgrepl.client.PgClientException;
import io.pgrepl.client.blocking.BlockingChanges;
import io.pgrepl.client.stream.ReconnectPolicy;
import io.pgrepl.client.stream.ReplicationProtocolException;
import io.pgrepl.client.stream.ReplicationSlotException;
import io.pgrepl.client.tx.NonTransactionalMessage;
import io.pgrepl.client.tx.Transaction;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import io.pgrepl.kafka.connect.offsets.DebeziumOffsets;
import io.pgrepl.kafka.connect.offsets.Position;
import io.pgrepl.kafka.connect.records.ChangeRecords;
import io.pgrepl.kafka.connect.snapshot.IncrementalReads;
import io.pgrepl.kafka.connect.snapshot.IncrementalStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The task's builder thread: reads the stream (assembled transactions, or the incremental stream's
 * items) and turns it into {@link Chunk}s of records ahead of poll(), so building overlaps
 * Connect's conversion and send() on the task thread; reconnects a lost stream. Everything that
 * decides delivery stays on the task thread, when a chunk is handed over.
 */
final class StreamBuilder {
    private static final Logger log = LoggerFactory.getLogger(PgreplSourceTask.class);

    /** What the builder needs of the task's connection. */
    interface Link {
        /** The stream's events, or null after a reconnect that could not open one. */
        BlockingChanges<?> events();

        /** Opens a new connection and stream from the slot. */
        void reopen();

        /** The reopen failed: no events until the next one. */
        void lost();

        /** Closes the stream and its connection. */
        void close();

        boolean stopping();
    }

    private final PgreplConnectorConfig config;
    private final ChangeRecords records;
    /** The incremental items' records, or null when the engine does not run. */
    private final IncrementalReads incrementalReads;
    private final BlockingQueue<Chunk> builtAhead;
    private final Link link;
    private Thread thread;
    /** What was built (resends up to it are skipped), the open transaction, failures in a row. */
    private Position built;
    private Transaction current;
    private final ReconnectBudget budget = ReconnectBudget.defaults();
    /** Why the last reconnect could not even open a stream. */
    private RuntimeException lastOpenFailure;

    StreamBuilder(PgreplConnectorConfig config, ChangeRecords records, IncrementalReads incrementalReads,
                  BlockingQueue<Chunk> builtAhead, Position from, Link link) {
        this.config = config;
        this.records = records;
        this.incrementalReads = incrementalReads;
        this.builtAhead = builtAhead;
        this.built = from;
        this.link = link;
    }

    void start(String name) {
        Thread t = new Thread(this::run, name);
        t.setDaemon(true);
        thread = t;
        t.start();
    }

    void interrupt() {
        Thread t = thread;
        if (t != null) t.interrupt();
    }

    /** The builder thread: until stop(), or a failure that is not retried (handed to poll() to throw). */
    private void run() {
        try {
            while (!link.stopping()) {
                try {
                    BlockingChanges<?> e = link.events();
                    if (e == null) {
                        RuntimeException f = lastOpenFailure;
                        throw f != null ? f : new ConnectException("not connected (the last reconnect failed)");
                    }
                    Object ev = e.poll(Duration.ofMillis(config.pollIntervalMs()));
                    if (ev == null) continue;
                    budget.succeeded();
                    build(ev);
                } catch (NoSuchElementException ended) {
                    reconnect(new ConnectException("the replication stream ended"));
                } catch (IncrementalReads.TableFailed f) {
                    throw f; // a table's snapshot, not the stream: no reconnect would change it
                } catch (RuntimeException e) {
                    reconnect(e);
                }
            }
        } catch (InterruptedException stopped) {
            // stop()
        } catch (IncrementalReads.TableFailed f) {
            // After the records built before it (the failed table's notification among them): they are in order.
            try {
                deliver(new Chunk(0, false, false, false, List.of(), null, f));
            } catch (InterruptedException stopped) {
                // stop()
            }
        } catch (RuntimeException fatal) {
            if (!link.stopping()) builtAhead.clear(); // nothing after a failure is handed over anyway
            builtAhead.offer(new Chunk(0, false, false, false, List.of(), null, fatal));
        }
    }

    private void build(Object item) throws InterruptedException {
        int max = config.maxBatchSize();
        Object ev = item;
        String state = null;
        if (item instanceof IncrementalStream.Reads r) {
            // Between transactions: in pieces of at most max.batch.size, all outside any transaction.
            List<SourceRecord> rs = incrementalReads.chunk(r, built);
            for (int i = 0; i < rs.size() || i == 0; i += max) {
                deliver(new Chunk(r.position(), false, false, false, rs.subList(i, Math.min(rs.size(), i + max)), null, null, true,
                        incrementalReads.state()));
            }
            IncrementalReads.TableFailed f = incrementalReads.takeFailure();
            if (f != null) throw f;
            return;
        } else if (item instanceof IncrementalStream.Tx tx) {
            incrementalReads.transaction(tx.state());
            state = incrementalReads.state();
            ev = tx.event();
        }
        if (ev instanceof Transaction t) {
            long lsn = t.endLsn();
            records.begin(lsn, t.commitLsn(), t.xid(), t.commitTimeMicros());
            current = t;
            Iterator<PgOutputRecord> changes = t.changes().iterator();
            boolean first = true;
            do {
                List<SourceRecord> chunk = new ArrayList<>();
                while (chunk.size() < max && changes.hasNext()) records.accept(changes.next(), built, chunk::add);
                boolean last = !changes.hasNext();
                if (last) {
                    current = null;
                    t.close();
                    records.endTransaction(built, chunk::add);
                    completed(lsn, chunk);
                }
                Position through = records.through();
                if (through != null) built = built.max(through);
                deliver(new Chunk(lsn, first, last, true, chunk, through, null, false, state));
                first = false;
            } while (current == t);
        } else if (ev instanceof NonTransactionalMessage m) {
            long lsn = m.ackLsn();
            records.beginStandalone(lsn);
            List<SourceRecord> chunk = new ArrayList<>(1);
            records.accept(m.message(), built, chunk::add);
            completed(lsn, chunk);
            Position through = records.through();
            built = built.max(through);
            // A message outside any transaction is a transaction of its own in Kafka too.
            deliver(new Chunk(lsn, true, true, true, chunk, through, null, false, state));
        }
        // Two-phase outcomes do not occur: two_phase is not requested.
    }

    /**
     * The transaction ending at {@code lsn} was built whole: its last record's offset (Connect's
     * last committed one after a graceful stop, typically) names it as done for Debezium too
     * ({@link Position}), and so do the offsets built after it.
     */
    private void completed(long lsn, List<SourceRecord> chunk) {
        records.end();
        if (chunk.isEmpty()) return;
        int last = chunk.size() - 1;
        SourceRecord r = chunk.get(last);
        Map<String, Object> offset = new HashMap<>(r.sourceOffset());
        DebeziumOffsets.putCommit(offset, lsn, 0, 0);
        chunk.set(last, new SourceRecord(r.sourcePartition(), offset, r.topic(), r.kafkaPartition(), r.keySchema(), r.key(),
                r.valueSchema(), r.value(), r.timestamp(), r.headers()));
    }

    /** Waits for room ahead of poll() (the stream waits meanwhile: its prefetch is bounded too). */
    private void deliver(Chunk c) throws InterruptedException {
        while (!builtAhead.offer(c, 100, TimeUnit.MILLISECONDS)) {
            if (link.stopping()) throw new InterruptedException("stopping");
        }
    }

    /**
     * A lost stream resumes from the slot; what was handed over already is skipped by position. A
     * slot held by another connection (a walsender that has not noticed its peer died yet, up to
     * wal_sender_timeout) is waited for up to {@link ReconnectPolicy#DEFAULT_SLOT_IN_USE_WAIT}
     * without counting as a failure; a failed reconnect counts once (when its failure comes back here).
     */
    private void reconnect(RuntimeException cause) throws InterruptedException {
        if (link.stopping()) return;
        String why = ReplicationSetup.safeMessage(cause, config);
        // Deterministic failures (bad frames, options the server refuses, a value that does not fit
        // its Connect schema: the same change fails again after a reconnect; a slot that is gone) are not retried.
        boolean slotGone = cause instanceof ReplicationSlotException se
                && (se.condition() == ReplicationSlotException.Condition.MISSING
                        || se.condition() == ReplicationSlotException.Condition.INVALIDATED);
        if (cause instanceof ReplicationProtocolException || cause instanceof PgClientException
                || cause instanceof IllegalArgumentException || cause instanceof DataException
                || cause instanceof MalformedMessageException || slotGone) {
            throw new ConnectException("replication from slot " + config.slotName() + " failed: " + why);
        }
        String giveUp = budget.failed(ReconnectBudget.slotHeld(cause));
        if (giveUp != null) {
            throw new ConnectException("replication from slot " + config.slotName() + " failed (" + giveUp + "): " + why);
        }
        if (budget.waitingForSlot()) {
            log.info("replication slot {} is held by another connection ({}); waiting for it", config.slotName(), why);
        } else {
            log.warn("replication stream of slot {} failed ({}); reconnecting (attempt {})", config.slotName(), why,
                    budget.failures());
        }
        lastOpenFailure = null;
        link.close();
        if (current != null) {
            current.close();
            current = null;
        }
        Thread.sleep(Math.min(5000, 250L << Math.min(Math.max(1, budget.failures()), 5)));
        try {
            link.reopen();
        } catch (RuntimeException e) {
            log.warn("reconnecting slot {} failed: {}", config.slotName(), ReplicationSetup.safeMessage(e, config));
            link.lost();
            lastOpenFailure = e; // counted when buildLoop hands it back here
        }
    }
}
