package io.pgrepl.kafka.connect;

import io.pgrepl.client.PgClientException;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.blocking.BlockingChanges;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.reactive.ReactiveReplication;
import io.pgrepl.client.reactive.ReplicationPublisher;
import io.pgrepl.client.replication.SnapshotMode;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.ReplicationProtocolException;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.client.stream.StreamingMode;
import io.pgrepl.client.tx.NonTransactionalMessage;
import io.pgrepl.client.tx.Transaction;
import io.pgrepl.client.tx.TxEvent;
import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;
import org.apache.kafka.connect.source.TransactionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one task of a connector: streams the slot through the blocking face (bounded prefetch; the
 * event loop never waits for Connect) and hands Connect whole or partial transactions.
 *
 * <p>Delivery: a transaction's end LSN is confirmed to the slot only once every record of it and
 * of all earlier transactions was acknowledged by Kafka ({@link #commitRecord}) and the offsets
 * covering them were committed: {@link #commit()} confirms what was wholly acknowledged at the
 * previous offset commit. Every record's offset is its transaction's end LSN plus its index, so a
 * restart (or a reconnect after the walsender went away) skips what was already handed over.
 *
 * <p>Initial snapshot (snapshot.mode initial, initial_only, when_needed): when one is due, the
 * slot is created by the client's snapshot API with an exported snapshot, the reads are drained
 * by poll() ({@link SnapshotReads}), and streaming starts from the consistent point on the same
 * connection. Reads carry an offset of their own ({@link Position#snapshotRead}); a task that
 * restarts from one knows the copy was interrupted, drops the slot and snapshots again. Heartbeats
 * and slot confirmations start only after the copy.
 */
public final class PgreplSourceTask extends SourceTask {
    private static final Logger log = LoggerFactory.getLogger(PgreplSourceTask.class);
    private static final int PREFETCH = 16;
    private static final int MAX_CONSECUTIVE_FAILURES = 10;
    /** Chunks of records built ahead of poll(); with max.batch.size this bounds what waits in memory. */
    private static final int BUILT_AHEAD = 4;

    private PgreplConnectorConfig config;
    private Map<String, String> partition;
    private ChangeRecords records;
    private final AckTracker acks = new AckTracker();
    private volatile PgConnection conn;
    private volatile ReplicationPublisher<TxEvent> publisher;
    private volatile BlockingChanges<TxEvent> events;
    private volatile boolean stopping;
    /** The initial snapshot while it runs; heartbeats and slot confirmations wait for it. */
    private volatile SnapshotReads snapshotReads;
    /** initial_only after its snapshot: nothing more to produce. */
    private volatile boolean idle;
    /** The last position handed to Connect (or stored in the offsets at start): resends up to it are skipped. */
    private Position written = Position.START;

    /** The last record handed over of the transaction being handed over (for its exactly-once commit). */
    private SourceRecord lastOfCurrent;
    private long lastSentMillis = System.currentTimeMillis();

    /*
     * Streaming: the builder thread reads the stream and turns it into records ahead of poll(), so
     * building overlaps Connect's conversion and send() on the task thread. Everything that decides
     * delivery (acks, offsets' positions, transaction commits, max.batch.size) still happens on the
     * task thread, when a chunk is handed over.
     */
    private final BlockingQueue<Chunk> builtAhead = new ArrayBlockingQueue<>(BUILT_AHEAD);
    private Chunk pending;
    private volatile Thread builder;
    /** Builder thread only: what was built (resends up to it are skipped), the open transaction, failures in a row. */
    private Position built;
    private Transaction current;
    private int failures;

    /**
     * Records of one transaction (or standalone message) in stream order, at most max.batch.size;
     * {@code open}: its first chunk, {@code seal}: its last; {@code through}: the last position
     * it covers (skipped records included); or the builder's fatal {@code failure}.
     */
    private record Chunk(long lsn, boolean open, boolean seal, boolean commit, List<SourceRecord> records,
                         Position through, RuntimeException failure) {}

    @Override
    public String version() {
        return SourceInfo.VERSION;
    }

    @Override
    public void start(Map<String, String> props) {
        config = new PgreplConnectorConfig(props);
        partition = Map.of("server", config.topicPrefix());
        Map<String, Object> stored = context.offsetStorageReader().offset(partition);
        boolean interrupted = Position.snapshotInterrupted(stored);
        written = interrupted ? Position.START : Position.fromOffset(stored);
        log.info("pgrepl task for slot {} resuming after {} (record {}){}", config.slotName(), Lsn.format(written.endLsn()),
                written.index(), interrupted ? "; its initial snapshot was interrupted" : "");
        PgConnection c = ReplicationSetup.connect(config);
        try {
            ReplicationSetup.ensurePublication(c, config);
            if (records == null) {
                records = new ChangeRecords(config, partition, ReplicationSetup.currentDatabase(c, config),
                        EnumTypes.load(c, config), new PrimaryKeys(config)::of);
            }
            PgreplConnectorConfig.SnapshotMode mode = config.snapshotMode();
            // A stored offset that is not an interrupted snapshot's: the snapshot (if any) is done.
            boolean snapshotDone = stored != null && !interrupted;
            if (mode == PgreplConnectorConfig.SnapshotMode.INITIAL_ONLY && snapshotDone) {
                log.info("snapshot.mode=initial_only and the snapshot is complete: the task stays idle");
                idle = true;
                c.close();
                return;
            }
            ReplicationSetup.SlotInfo slot = ReplicationSetup.slot(c, config);
            boolean snapshot = switch (mode) {
                case NEVER -> false;
                case INITIAL, INITIAL_ONLY -> !snapshotDone;
                case WHEN_NEEDED -> !snapshotDone || slot == null;
            };
            if (!snapshot) {
                ReplicationSetup.ensureSlot(c, config, SnapshotMode.NOTHING);
                conn = c;
                startStreaming(c);
                return;
            }
            if (slot != null) ReplicationSetup.dropSlotForSnapshot(c, config, interrupted);
            else if (!config.slotCreate()) {
                throw new ConnectException("snapshot.mode=" + config.getString(PgreplConnectorConfig.SNAPSHOT_MODE)
                        + " needs to create replication slot \"" + config.slotName() + "\" (its exported snapshot exists"
                        + " only at creation), but " + PgreplConnectorConfig.SLOT_CREATE + " is false");
            }
            written = Position.START;
            conn = c;
            snapshotReads = SnapshotReads.start(c, config, streamOptions(c),
                    mode == PgreplConnectorConfig.SnapshotMode.INITIAL_ONLY, records);
            log.info("initial snapshot of publication {} started (slot {}, {} worker(s))", config.publicationName(),
                    config.slotName(), config.snapshotMaxThreads());
        } catch (RuntimeException e) {
            conn = null;
            c.close();
            throw e;
        }
    }

    private LogicalReplicationOptions streamOptions(PgConnection c) {
        return LogicalReplicationOptions.builder(config.slotName())
                .publications(config.publicationName())
                .streaming(streaming(c.serverMajor()))
                .statusInterval(Duration.ofMillis(config.statusUpdateIntervalMs()))
                .messages(!config.messagesTopic().isEmpty() && c.serverMajor() >= 14 ? Boolean.TRUE : null)
                .build();
    }

    /** Streams from the slot's confirmed position (after a snapshot: its consistent point) on {@code c}. */
    private void startStreaming(PgConnection c) {
        openEvents(c);
        if (builder != null) return;
        built = written;
        Thread t = new Thread(this::buildLoop, "pgrepl-records-" + config.slotName());
        t.setDaemon(true);
        builder = t;
        t.start();
    }

    private void openEvents(PgConnection c) {
        ReplicationPublisher<TxEvent> p = ReactiveReplication.transactions(c, streamOptions(c), FlowOptions.defaults());
        events = BlockingChanges.of(p, PREFETCH, p.terminated(), () -> {
            LogicalReplicationStream s = p.stream();
            return s != null && s.eventLoop().inEventLoop();
        });
        publisher = p;
    }

    /** After a lost stream: a new connection, streaming from the slot. */
    private void openStream() {
        PgConnection c = ReplicationSetup.connect(config);
        try {
            openEvents(c);
            conn = c;
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /**
     * The snapshot's reads, then (initial, when_needed) streaming on the same connection from the
     * consistent point; initial_only closes it instead (its temporary slot goes with it) and idles.
     */
    private List<SourceRecord> pollSnapshot() throws InterruptedException {
        List<SourceRecord> out = new ArrayList<>();
        boolean complete;
        try {
            complete = snapshotReads.drain(out, config.maxBatchSize(), Duration.ofMillis(config.pollIntervalMs()));
        } catch (RuntimeException e) {
            throw new ConnectException("initial snapshot for slot " + config.slotName() + " failed (the slot it created"
                    + " was dropped; a restart redoes it): " + ReplicationSetup.safeMessage(e, config));
        }
        for (SourceRecord r : out) acks.untracked(AckTracker.ticket(r.sourceOffset()));
        TransactionContext tx = context.transactionContext();
        if (tx != null && !out.isEmpty()) tx.commitTransaction(out.get(out.size() - 1));
        if (complete) {
            var r = snapshotReads.result();
            snapshotReads = null;
            written = new Position(r.consistentPoint(), -1);
            lastSentMillis = System.currentTimeMillis();
            log.info("initial snapshot done: {} rows of {} table(s) at {}", r.rows(), r.tables().size(),
                    Lsn.format(r.consistentPoint()));
            if (config.snapshotMode() == PgreplConnectorConfig.SnapshotMode.INITIAL_ONLY) {
                idle = true;
                closeStream();
            } else {
                startStreaming(conn);
            }
        }
        return out.isEmpty() ? null : out;
    }

    /** streaming=on/parallel asks for what the server offers up to that (14+ on, 16+ parallel). */
    private StreamingMode streaming(int major) {
        StreamingMode asked = config.streaming();
        if (major < 14) {
            // The option does not exist there: large transactions arrive whole, at commit.
            if (asked != StreamingMode.OFF) {
                log.info("streaming={} needs PostgreSQL 14 or later; the server is {}, so transactions arrive at"
                        + " commit", config.getString(PgreplConnectorConfig.STREAMING), major);
            }
            return null;
        }
        if (asked == StreamingMode.OFF) return StreamingMode.OFF;
        if (asked == StreamingMode.PARALLEL && major >= 16) return StreamingMode.PARALLEL;
        return StreamingMode.ON;
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
        if (snapshotReads != null) return pollSnapshot();
        if (idle) {
            Thread.sleep(config.pollIntervalMs());
            return null;
        }
        List<SourceRecord> out = new ArrayList<>();
        int max = config.maxBatchSize();
        long deadline = System.nanoTime() + config.pollIntervalMs() * 1_000_000L;
        while (!stopping) {
            Chunk c = pending;
            pending = null;
            if (c == null) {
                long wait = out.isEmpty() ? Math.max(0, deadline - System.nanoTime()) : 0;
                c = builtAhead.poll(wait, TimeUnit.NANOSECONDS);
                if (c == null) break;
            }
            if (c.failure() != null || (!out.isEmpty() && out.size() + c.records().size() > max)) {
                if (out.isEmpty()) throw c.failure();
                pending = c;
                break;
            }
            handOver(c, out);
            if (out.size() >= max) break;
        }
        if (!out.isEmpty()) {
            lastSentMillis = System.currentTimeMillis();
            return out;
        }
        int hb = config.heartbeatIntervalMs();
        if (hb > 0 && System.currentTimeMillis() - lastSentMillis >= hb && records != null) {
            lastSentMillis = System.currentTimeMillis();
            SourceRecord h = records.heartbeat(written == Position.START ? null : written);
            acks.untracked(AckTracker.ticket(h.sourceOffset()));
            return List.of(h);
        }
        return null;
    }

    private void handOver(Chunk c, List<SourceRecord> out) {
        if (c.open()) {
            acks.open(c.lsn());
            lastOfCurrent = null;
        }
        List<SourceRecord> rs = c.records();
        if (!rs.isEmpty()) {
            out.addAll(rs);
            acks.produced(c.lsn(), rs.size());
            lastOfCurrent = rs.get(rs.size() - 1);
        }
        if (c.through() != null) written = written.max(c.through());
        if (!c.seal()) return;
        acks.seal(c.lsn());
        TransactionContext tx = context.transactionContext();
        if (c.commit() && tx != null && lastOfCurrent != null) tx.commitTransaction(lastOfCurrent);
        lastOfCurrent = null;
    }

    /** The builder thread: until stop(), or a failure that is not retried (handed to poll() to throw). */
    private void buildLoop() {
        try {
            while (!stopping) {
                try {
                    BlockingChanges<TxEvent> e = events;
                    if (e == null) throw new ConnectException("not connected (the last reconnect failed)");
                    TxEvent ev = e.poll(Duration.ofMillis(config.pollIntervalMs()));
                    if (ev == null) continue;
                    failures = 0;
                    build(ev);
                } catch (NoSuchElementException ended) {
                    reconnect(new ConnectException("the replication stream ended"));
                } catch (RuntimeException e) {
                    reconnect(e);
                }
            }
        } catch (InterruptedException stopped) {
            // stop()
        } catch (RuntimeException fatal) {
            if (!stopping) builtAhead.clear(); // nothing after a failure is handed over anyway
            builtAhead.offer(new Chunk(0, false, false, false, List.of(), null, fatal));
        }
    }

    private void build(TxEvent ev) throws InterruptedException {
        int max = config.maxBatchSize();
        if (ev instanceof Transaction t) {
            long lsn = t.endLsn();
            records.begin(lsn, t.commitLsn(), t.xid(), t.commitTimeMicros());
            current = t;
            Iterator<PgOutputRecord> changes = t.changes().iterator();
            boolean first = true;
            do {
                List<SourceRecord> chunk = new ArrayList<>();
                while (chunk.size() < max && changes.hasNext()) records.accept(changes.next(), built, chunk::add);
                Position through = records.through();
                if (through != null) built = built.max(through);
                boolean last = !changes.hasNext();
                if (last) {
                    current = null;
                    t.close();
                }
                deliver(new Chunk(lsn, first, last, true, chunk, through, null));
                first = false;
            } while (current == t);
        } else if (ev instanceof NonTransactionalMessage m) {
            long lsn = m.ackLsn();
            records.beginStandalone(lsn);
            List<SourceRecord> chunk = new ArrayList<>(1);
            records.accept(m.message(), built, chunk::add);
            Position through = records.through();
            built = built.max(through);
            deliver(new Chunk(lsn, true, true, false, chunk, through, null));
        }
        // Two-phase outcomes do not occur: two_phase is not requested.
    }

    /** Waits for room ahead of poll() (the stream waits meanwhile: its prefetch is bounded too). */
    private void deliver(Chunk c) throws InterruptedException {
        while (!builtAhead.offer(c, 100, TimeUnit.MILLISECONDS)) {
            if (stopping) throw new InterruptedException("stopping");
        }
    }

    /** A lost stream resumes from the slot; what was handed over already is skipped by position. */
    private void reconnect(RuntimeException cause) throws InterruptedException {
        if (stopping) return;
        String why = ReplicationSetup.safeMessage(cause, config);
        // Deterministic failures (bad frames, options the server refuses, a value that does not fit
        // its Connect schema: the same change fails again after a reconnect) are not retried.
        if (cause instanceof ReplicationProtocolException || cause instanceof PgClientException
                || cause instanceof IllegalArgumentException || cause instanceof DataException
                || cause instanceof MalformedMessageException
                || ++failures > MAX_CONSECUTIVE_FAILURES) {
            throw new ConnectException("replication from slot " + config.slotName() + " failed: " + why);
        }
        log.warn("replication stream of slot {} failed ({}); reconnecting (attempt {})", config.slotName(), why, failures);
        closeStream();
        if (current != null) {
            current.close();
            current = null;
        }
        Thread.sleep(Math.min(5000, 250L << Math.min(failures, 5)));
        try {
            openStream();
        } catch (RuntimeException e) {
            log.warn("reconnecting slot {} failed: {}", config.slotName(), ReplicationSetup.safeMessage(e, config));
            events = null;
            if (++failures > MAX_CONSECUTIVE_FAILURES) throw e;
        }
    }

    @Override
    public void commitRecord(SourceRecord record, RecordMetadata metadata) {
        Map<String, ?> offset = record.sourceOffset();
        if (record.topic().startsWith(ChangeRecords.HEARTBEAT_TOPIC_PREFIX) || (offset != null && offset.containsKey(Position.SNAPSHOT))) {
            acks.untrackedAcknowledged(AckTracker.ticket(offset)); // they hold back later transactions' offsets
            return;
        }
        if (offset != null && offset.get(Position.LSN_COMMIT) instanceof Number lsn) acks.acknowledged(lsn.longValue());
    }

    /** Offsets were committed: confirm what they cover ({@link AckTracker#offsetsCommitted}). */
    @Override
    public void commit() {
        long confirm = acks.offsetsCommitted();
        ReplicationPublisher<TxEvent> p = publisher;
        LogicalReplicationStream s = p == null ? null : p.stream();
        if (confirm != 0 && s != null) s.acknowledge(confirm);
    }

    @Override
    public void stop() {
        stopping = true;
        Thread b = builder;
        if (b != null) b.interrupt();
        closeStream();
    }

    private void closeStream() {
        SnapshotReads sr = snapshotReads;
        if (sr != null) {
            try {
                sr.close();
            } catch (RuntimeException ignored) {
                // the copy's own failure was already reported
            }
        }
        BlockingChanges<TxEvent> e = events;
        if (e != null) {
            try {
                e.close();
            } catch (RuntimeException ignored) {
                // the stream's own failure was already reported
            }
        }
        PgConnection c = conn;
        if (c != null) c.close();
    }
}
