package io.pgrepl.flink.internal;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.QueryResult;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.Row;
import io.pgrepl.client.blocking.BlockingChanges;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.reactive.ReactiveReplication;
import io.pgrepl.client.reactive.ReplicationPublisher;
import io.pgrepl.client.replication.Identifiers;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.StreamMetrics;
import io.pgrepl.client.stream.StreamingMode;
import io.pgrepl.client.tx.AssemblerOptions;
import io.pgrepl.client.tx.Transaction;
import io.pgrepl.client.tx.TxEvent;
import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import io.pgrepl.codec.pgoutput.record.Origin;
import io.pgrepl.codec.pgoutput.record.Relation;
import io.pgrepl.codec.pgoutput.record.Truncate;
import io.pgrepl.codec.pgoutput.record.Type;
import io.pgrepl.flink.PgreplFlinkException;
import io.pgrepl.flink.TableName;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.apache.flink.connector.base.source.reader.RecordsBySplits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads the stream split: assembled transactions from the slot through the client's blocking face
 * (bounded prefetch; large transactions stream and spill as the client assembles them), each turned
 * into change elements in fetches of at most {@value #BATCH} records, then the transaction's end.
 * The snapshot's coverage decides which changes are already in the snapshot rows ({@link Merge}).
 * Nothing is acknowledged here: the reader confirms the slot when a checkpoint completes
 * ({@link #confirm}).
 */
final class StreamFetch implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(StreamFetch.class);
    static final int BATCH = 2048;
    private static final int PREFETCH = 16;
    private static final long POLL_NANOS = 100_000_000L;

    private final Settings settings;
    private final StreamSplit split;
    private final Set<TableName> captured;
    private final Merge merge;
    private final SignalWatch signals;
    /** The slot was found dropped or invalidated and the source reads every table again from a new one. */
    private boolean slotLost;
    private boolean closed;
    private PgConnection connection;
    private volatile ReplicationPublisher<TxEvent> publisher;
    private BlockingChanges<TxEvent> events;

    private Transaction tx;
    private Iterator<PgOutputRecord> records;
    private long ordinal;
    private long skipThrough;
    /** The end of the last transaction turned into elements whole (or an idle position). */
    private long handed;
    private long lastAdvanceNanos = System.nanoTime();
    private long lastKeepaliveNanos;
    private boolean finished;
    private volatile boolean wakeUp;

    StreamFetch(Settings settings, StreamSplit split) {
        this.settings = settings;
        this.split = split;
        this.captured = new HashSet<>(settings.tables());
        Coverage coverage = new Coverage(split.coverage());
        this.merge = new Merge(settings, coverage, split.reread(), split.held(), split.coverage());
        this.signals = new SignalWatch(settings, coverage);
        this.handed = split.lsn();
    }

    /** Connects, checks the slot against the position being resumed, and starts streaming. */
    void open() {
        PgConnection c = Db.connect(settings, ReplicationMode.DATABASE);
        try {
            if (!checkSlot(c)) {
                c.close();
                slotLost = true;
                return;
            }
            LogicalReplicationOptions.Builder o = LogicalReplicationOptions.builder(settings.slotName())
                    .publications(settings.publication())
                    .startLsn(split.lsn())
                    .confirmIdleKeepalives(false)
                    .statusInterval(Duration.ofSeconds(10));
            StreamingMode streaming = streaming(c.serverMajor());
            if (streaming != null) o.streaming(streaming);
            AssemblerOptions a = AssemblerOptions.defaults().withMemoryBudgetBytes(settings.memoryBudgetBytes());
            if (settings.spillDirectory() != null) a = a.withSpillDirectory(Path.of(settings.spillDirectory()));
            FlowOptions flow = BlockingChanges.direct(FlowOptions.defaults().withAssembler(a));
            ReplicationPublisher<TxEvent> p = ReactiveReplication.transactions(c, o.build(), flow);
            events = BlockingChanges.of(p, PREFETCH);
            publisher = p;
            connection = c;
            log.info("pgrepl source: streaming slot {} from {}", settings.slotName(), split.lsn() == 0 ? "its confirmed position" : Lsn.format(split.lsn()));
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
    }

    private StreamingMode streaming(int major) {
        StreamingMode asked = settings.streaming();
        if (major < 14 || asked == null) return null;
        if (asked == StreamingMode.OFF) return StreamingMode.OFF;
        return asked == StreamingMode.PARALLEL && major >= 16 ? StreamingMode.PARALLEL : StreamingMode.ON;
    }

    /**
     * The slot must still exist, and must not have been confirmed past the position resumed from:
     * the server could not send what lies between (a restore from a checkpoint older than the
     * ones the slot was confirmed for). A slot dropped or invalidated fails the split, unless the
     * source reads the tables again then. {@return whether the slot can be streamed; false: it is lost and the tables are read again}
     */
    private boolean checkSlot(PgConnection c) {
        QueryResult q = Db.query(c, settings, "SELECT confirmed_flush_lsn::text, " + (c.serverMajor() >= 13 ? "wal_status" : "NULL")
                + " FROM pg_catalog.pg_replication_slots WHERE slot_name = " + Identifiers.quoteLiteral(settings.slotName()),
                "looking up slot " + settings.slotName());
        boolean lost = q.rows().isEmpty() || "lost".equals(q.rows().get(0).get(1));
        if (lost && settings.lostSlotSnapshot()) {
            log.warn("pgrepl source: replication slot {} is {}: it is created again and every table read again (slot.lost.handling"
                    + " snapshot); changes between {} and the new slot are not streamed", settings.slotName(),
                    q.rows().isEmpty() ? "gone" : "invalidated", Lsn.format(split.lsn()));
            return false;
        }
        if (q.rows().isEmpty()) {
            throw new PgreplFlinkException("replication slot \"" + settings.slotName() + "\" is gone: the changes since "
                    + Lsn.format(split.lsn()) + " cannot be read any more. Start the job without state (a new snapshot) to rebuild the tables");
        }
        Row row = q.rows().get(0);
        if ("lost".equals(row.get(1))) {
            throw new PgreplFlinkException("replication slot \"" + settings.slotName() + "\" was invalidated (wal_status lost): the WAL"
                    + " since its position was removed. Drop it and start the job without state (a new snapshot)");
        }
        long confirmed = row.get(0) == null ? 0 : Lsn.parse(row.get(0));
        if (split.lsn() != 0 && Long.compareUnsigned(confirmed, split.lsn()) > 0) {
            throw new PgreplFlinkException("replication slot \"" + settings.slotName() + "\" was confirmed up to " + Lsn.format(confirmed)
                    + ", past the position being restored (" + Lsn.format(split.lsn()) + "): the changes in between cannot be read"
                    + " again. Restore from a later checkpoint, or raise scan.lsn-commit.checkpoints-num-delay so that the"
                    + " checkpoints kept stay restorable");
        }
        return true;
    }

    /** {@return the stream now running, or null} */
    LogicalReplicationStream stream() {
        ReplicationPublisher<TxEvent> p = publisher;
        return p == null ? null : p.stream();
    }

    /** Confirms the slot up to {@code lsn} (any thread). */
    void confirm(long lsn) {
        LogicalReplicationStream s = stream();
        if (s != null && lsn != 0) s.acknowledge(lsn);
    }

    void wakeUp() {
        wakeUp = true;
    }

    /** The next elements: at most one batch of changes, or nothing after a short wait. */
    void fetch(RecordsBySplits.Builder<Element> out) throws InterruptedException {
        if (finished) return;
        if (slotLost) {
            Resnapshot r = new Resnapshot(settings.tables(), true);
            suspend(out, new Element.Suspend(r), r);
            return;
        }
        int n = 0;
        long deadline = System.nanoTime() + POLL_NANOS;
        wakeUp = false;
        Merge.Sink sink = sink(out);
        while (n < BATCH && !wakeUp && !finished) {
            if (tx != null) {
                n += continueTx(out, sink, BATCH - n);
                continue;
            }
            long wait = n > 0 ? 0 : Math.max(0, deadline - System.nanoTime());
            TxEvent ev = events.poll(Duration.ofNanos(wait));
            if (ev == null) {
                if (n == 0) idle(out);
                return;
            }
            if (!(ev instanceof Transaction t)) continue; // messages outside transactions, two-phase outcomes: nothing to emit
            if (Long.compareUnsigned(t.endLsn(), handed) <= 0) {
                t.close(); // emitted before the checkpoint this split was restored from
                continue;
            }
            if (split.stopLsn() != 0 && Long.compareUnsigned(t.endLsn(), split.stopLsn()) > 0) {
                t.close();
                finish(out);
                return;
            }
            tx = t;
            records = t.changes().iterator();
            ordinal = 0;
            skipThrough = t.endLsn() == split.partialEndLsn() ? split.partialCount() : 0;
            merge.startTransaction(t, sink);
        }
    }

    /** Where the merge's decisions go: elements of the stream split, in order. */
    private Merge.Sink sink(RecordsBySplits.Builder<Element> out) {
        return new Merge.Sink() {
            @Override
            public void accept(io.pgrepl.flink.PgChange change, long ordinal) {
                out.add(StreamSplit.ID, new Element.Change(change, tx.endLsn(), ordinal));
            }

            @Override
            public void hold(HeldDelete delete) {
                out.add(StreamSplit.ID, new Element.Hold(delete));
            }

            @Override
            public void release(HeldKey key) {
                out.add(StreamSplit.ID, new Element.Release(key));
            }

            @Override
            public void flush(HeldDelete delete) {
                out.add(StreamSplit.ID, new Element.Flush(delete));
            }
        };
    }

    /** Turns up to {@code max} records of the open transaction into elements; closes it at its end. {@return the records consumed} */
    private int continueTx(RecordsBySplits.Builder<Element> out, Merge.Sink sink, int max) {
        List<PgOutputRecord> batch = new ArrayList<>(Math.min(max, 256));
        List<Long> ordinals = new ArrayList<>(Math.min(max, 256));
        while (batch.size() < max && records.hasNext()) {
            PgOutputRecord r = records.next();
            // Relation, Type and Origin records depend on the session (a new connection sends Relation
            // again before its first change of a table): only the changes count, so that a position
            // inside a transaction means the same changes on any connection.
            if (r instanceof Relation || r instanceof Type || r instanceof Origin) continue;
            long at = ++ordinal;
            // Signal rows are read even where a restored position skips the changes around them:
            // the suspension they lead to is decided at the transaction's end.
            if (r instanceof Insert ins && settings.signalTable() != null) {
                Relation rel = tx.relation(ins.relationOid());
                if (rel != null && signals.isSignal(rel)) {
                    signals.offer(ins, rel, tx.xid(), tx.endLsn());
                    continue;
                }
            }
            if (at <= skipThrough) continue;
            if (r instanceof Truncate t) {
                truncate(t);
                continue;
            }
            batch.add(r);
            ordinals.add(at);
        }
        merge.changes(tx, batch, ordinals, captured, sink);
        if (!records.hasNext()) {
            // The suspension travels with the transaction's end: no checkpoint can fall between them
            // and record the transaction as emitted without the signal that stops the stream there.
            Resnapshot asked = signals.take();
            out.add(StreamSplit.ID, new Element.TxDone(tx.endLsn(), tx.commitTimeMicros(), asked));
            handed = tx.endLsn();
            tx.close();
            tx = null;
            records = null;
            if (asked != null) suspend(out, null, asked);
        }
        return Math.max(1, batch.size());
    }

    private void truncate(Truncate t) {
        for (int oid : t.relationOids()) {
            Relation rel = tx.relation(oid);
            TableName name = rel == null ? null : Merge.tableOf(rel);
            if (name == null || !captured.contains(name)) continue;
            if (settings.failOnTruncate()) {
                throw new PgreplFlinkException("TRUNCATE of " + name + " in the transaction ending at " + Lsn.format(tx.endLsn())
                        + ": a changelog cannot say which rows it removed. Start the job anew (a new snapshot), or set"
                        + " scan.truncate.handling to 'skip' to go on without it (the rows stay downstream)");
            }
            log.warn("pgrepl source: TRUNCATE of {} at {} skipped (scan.truncate.handling=skip): its rows stay downstream", name,
                    Lsn.format(tx.endLsn()));
        }
    }

    /**
     * Nothing arrived: a bounded stream ends once the server has sent everything up to its stop
     * position; an idle stream moves its position to the server's WAL end every heartbeat, when
     * everything received was emitted (every transaction ending at or below that end was sent
     * before the server reported it).
     */
    private void idle(RecordsBySplits.Builder<Element> out) {
        ReplicationPublisher<TxEvent> p = publisher;
        LogicalReplicationStream s = p == null ? null : p.stream();
        if (s == null) return;
        long now = System.nanoTime();
        boolean stopping = split.stopLsn() != 0;
        Duration hb = settings.heartbeat();
        boolean heartbeatDue = !hb.isZero() && now - lastAdvanceNanos >= hb.toNanos();
        if (!stopping && !heartbeatDue) return;
        if (now - lastKeepaliveNanos >= 200_000_000L) {
            lastKeepaliveNanos = now;
            s.requestKeepalive(); // the answer is in the metrics of the next status update
        }
        StreamMetrics m = s.metrics();
        if (m == null || p.queued() > 0 || events.buffered() > 0) return;
        long walEnd = m.serverWalEnd();
        if (stopping && Long.compareUnsigned(walEnd, split.stopLsn()) >= 0) {
            finish(out);
            return;
        }
        if (heartbeatDue && Long.compareUnsigned(handed, m.receivedLsn()) >= 0 && Long.compareUnsigned(walEnd, handed) > 0) {
            merge.passed(walEnd, sink(out));
            out.add(StreamSplit.ID, new Element.Advance(walEnd));
            handed = walEnd;
            lastAdvanceNanos = now;
        }
    }

    /**
     * Stops after the last transaction emitted for tables to be read again: the split ends here
     * and goes to the enumerator, and the slot is let go at once so that the stream can go on from
     * any reader once they are read.
     */
    private void suspend(RecordsBySplits.Builder<Element> out, Element.Suspend element, Resnapshot request) {
        if (element != null) out.add(StreamSplit.ID, element);
        finished = true;
        out.addFinishedSplit(StreamSplit.ID);
        log.info("pgrepl source: the stream stops at {} for {} to be read again{}", Lsn.format(handed), request.tables(),
                request.slotLost() ? " from a new slot" : "");
        close();
    }

    boolean finished() {
        return finished;
    }

    private void finish(RecordsBySplits.Builder<Element> out) {
        finished = true;
        out.addFinishedSplit(StreamSplit.ID);
        log.info("pgrepl source: the stream passed {} (startup mode snapshot): done", Lsn.format(split.stopLsn()));
    }

    @Override
    public void close() {
        if (closed) return;
        closed = true;
        if (tx != null) tx.close();
        tx = null;
        BlockingChanges<TxEvent> e = events;
        events = null;
        publisher = null;
        if (e != null) e.close();
        if (connection != null) connection.close();
        connection = null;
        merge.close();
    }
}
