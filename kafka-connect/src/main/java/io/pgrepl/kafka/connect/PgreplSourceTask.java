package io.pgrepl.kafka.connect;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.blocking.BlockingChanges;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.reactive.ReactiveReplication;
import io.pgrepl.client.reactive.ReplicationPublisher;
import io.pgrepl.client.replication.SnapshotMode;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.StreamMetrics;
import io.pgrepl.client.tx.TxEvent;
import io.pgrepl.codec.Lsn;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.connect.errors.ConnectException;
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
 * restarts from one knows the copy was interrupted, keeps the slot, copies again under a fresh
 * snapshot and streams every change since the first copy's consistent point ({@link StartPlan}
 * says why that is exact, and decides every start). Heartbeats and slot confirmations start only
 * after the copy.
 */
public final class PgreplSourceTask extends SourceTask {
    private static final Logger log = LoggerFactory.getLogger(PgreplSourceTask.class);
    private static final int PREFETCH = 16;
    /** Chunks of records built ahead of poll(); with max.batch.size this bounds what waits in memory. */
    private static final int BUILT_AHEAD = 4;

    private PgreplConnectorConfig config;
    private Map<String, String> partition;
    private ChangeRecords records;
    private final AckTracker acks = new AckTracker();
    /** Handed over, not yet acknowledged: poll() waits at max.unacknowledged.records/.ms (see there why). */
    private volatile UnacknowledgedRecords unacknowledged;
    private volatile PgConnection conn;
    private volatile ReplicationPublisher<?> publisher;
    /** TxEvents, or {@link IncrementalStream.Item}s when incremental snapshots can run. */
    private volatile BlockingChanges<?> events;
    /** The incremental snapshot engine around the stream, or null (see {@link IncrementalSettings#enabled}). */
    private volatile IncrementalStream incremental;
    /** Builder thread: the incremental items' records and offsets. */
    private IncrementalReads incrementalReads;
    /** The kafka signal channel's consumer, or null. */
    private volatile KafkaSignals kafkaSignals;
    /** Task thread: the incremental state of what was handed over last (heartbeats carry it). */
    private String handedState;
    private volatile boolean stopping;
    /** The slot's own figures as task metrics (slot.metrics.interval.ms), or null. */
    private volatile SlotConnectMetrics slotMetrics;
    /** slot.guard.* thresholds at work, or null. */
    private volatile SlotGuardTask slotGuard;
    /** The initial snapshot while it runs; heartbeats and slot confirmations wait for it. */
    private volatile SnapshotReads snapshotReads;
    /** initial_only after its snapshot: nothing more to produce. */
    private volatile boolean idle;
    /** The last position handed to Connect (or stored in the offsets at start): resends up to it are skipped. */
    private Position written = Position.START;
    /** Task thread: the end LSN of the last transaction handed over that had no records (heartbeats record it). */
    private long passed;

    /** The last record handed over of the transaction being handed over (for its exactly-once commit). */
    private SourceRecord lastOfCurrent;
    private long lastSentMillis = System.currentTimeMillis();
    private long lastHeartbeatMillis;

    /*
     * Streaming: the builder thread reads the stream and turns it into records ahead of poll(), so
     * building overlaps Connect's conversion and send() on the task thread. Everything that decides
     * delivery (acks, offsets' positions, transaction commits, max.batch.size) still happens on the
     * task thread, when a chunk is handed over.
     */
    private final BlockingQueue<Chunk> builtAhead = new ArrayBlockingQueue<>(BUILT_AHEAD);
    private Chunk pending;
    private volatile StreamBuilder builder;

    @Override
    public String version() {
        return SourceInfo.VERSION;
    }

    @Override
    public void start(Map<String, String> props) {
        config = new PgreplConnectorConfig(props);
        unacknowledged = new UnacknowledgedRecords(config.maxUnacknowledgedRecords(), config.maxUnacknowledgedMs());
        partition = Map.of("server", config.topicPrefix());
        slotMetrics = SlotConnectMetrics.start(context, config);
        slotGuard = SlotGuardTask.start(config);
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
            if (IncrementalSettings.enabled(config)) startIncremental(c, stored);
            ReplicationSetup.SlotInfo slot = ReplicationSetup.slot(c, config);
            if (slot != null) ReplicationSetup.requireLogicalPgoutput(slot, config);
            StartPlan plan = StartPlan.decide(config.snapshotMode(), config.slotLostHandling(), stored,
                    slot == null ? null : slot.positions(), config.slotName());
            switch (plan.action()) {
                case IDLE -> {
                    log.info("snapshot.mode=initial_only and the snapshot is complete: the task stays idle");
                    idle = true;
                    c.close();
                    return;
                }
                case STREAM -> {
                    ReplicationSetup.ensureSlot(c, config, SnapshotMode.NOTHING);
                    conn = c;
                    startStreaming(c);
                    return;
                }
                case SNAPSHOT_NEW_SLOT, SNAPSHOT_EXISTING_SLOT -> {
                    if (IncrementalSettings.initialMethod(config) == IncrementalSettings.InitialMethod.INCREMENTAL) {
                        startIncrementalLoad(c, plan);
                        return;
                    }
                    if (plan.action() == StartPlan.Action.SNAPSHOT_NEW_SLOT && !config.slotCreate()) {
                        throw new ConnectException("a snapshot (" + plan.why() + ") needs to create replication slot \""
                                + config.slotName() + "\" (its exported snapshot exists only at creation), but "
                                + PgreplConnectorConfig.SLOT_CREATE + " is false");
                    }
                }
                default -> { }
            }
            if (plan.action() == StartPlan.Action.SNAPSHOT_EXISTING_SLOT || written != Position.START) {
                log.warn("slot {}: {}; copying every table again{}", config.slotName(), plan.why(),
                        plan.action() == StartPlan.Action.SNAPSHOT_EXISTING_SLOT ? " under a fresh snapshot, keeping the slot,"
                                + " then streaming from " + Lsn.format(plan.streamFrom()) : "");
            }
            written = Position.START;
            conn = c;
            snapshotReads = SnapshotReads.start(c, config, streamOptions(c), plan, records);
            log.info("initial snapshot of publication {} started (slot {}, {} worker(s))", config.publicationName(),
                    config.slotName(), config.snapshotMaxThreads());
        } catch (RuntimeException e) {
            conn = null;
            c.close();
            throw e;
        }
    }

    /** The engine around the stream, resuming from the state in the stored offsets; the signal table checked. */
    private void startIncremental(PgConnection c, Map<String, Object> stored) {
        IncrementalSetup.checkSignalTable(c, config);
        String resume = Position.incrementalState(stored);
        if (incremental == null) incremental = new IncrementalStream(IncrementalSettings.options(config, SignalOffsets.engineState(resume)));
        SlotGuardTask guard = slotGuard;
        if (guard != null) guard.snapshot(incremental.engine().guardControl()); // hold or abort reads before failing the task
        String topic = IncrementalSettings.notificationTopic(config);
        incrementalReads = new IncrementalReads(records, topic == null ? null : new SnapshotNotifications(topic,
                config.topicPrefix(), partition, new MaximumKeys(config)::of), resume);
        if (resume != null) log.info("slot {}: resuming incremental snapshots from the stored offsets", config.slotName());
        if (IncrementalSettings.kafkaChannel(config) && kafkaSignals == null) {
            kafkaSignals = KafkaSignals.start(config, incremental.engine(), incremental.nextSignal(), SignalOffsets.next(resume));
        }
    }

    /**
     * snapshot.initial.method=incremental: no exported snapshot; the slot streams from its position
     * (created now, or kept) and every published table is read in chunks beside the stream.
     */
    private void startIncrementalLoad(PgConnection c, StartPlan plan) {
        ReplicationSetup.ensureSlot(c, config, SnapshotMode.NOTHING);
        List<String> tables = IncrementalSetup.initialTables(c, config);
        log.info("slot {}: {}; initial load by incremental snapshot of {} table(s)", config.slotName(), plan.why(), tables.size());
        written = Position.START;
        incremental.engine().execute(tables.toArray(String[]::new)); // queued until the stream has started
        conn = c;
        startStreaming(c);
    }

    private LogicalReplicationOptions streamOptions(PgConnection c) {
        return StreamSettings.options(config, c.serverMajor());
    }

    /** Streams from the slot's confirmed position (after a snapshot: its consistent point) on {@code c}. */
    private void startStreaming(PgConnection c) {
        openEvents(c);
        if (builder != null) return;
        StreamBuilder b = new StreamBuilder(config, records, incrementalReads, builtAhead, written, new StreamBuilder.Link() {
            @Override public BlockingChanges<?> events() { return events; }
            @Override public void reopen() { openStream(); }
            @Override public void lost() { events = null; }
            @Override public void close() { closeStream(); }
            @Override public boolean stopping() { return stopping; }
        });
        builder = b;
        b.start("pgrepl-records-" + config.slotName());
    }

    private void openEvents(PgConnection c) {
        IncrementalStream inc = incremental;
        if (inc == null) {
            ReplicationPublisher<TxEvent> p = ReactiveReplication.transactions(c, streamOptions(c), FlowOptions.defaults());
            events = blocking(p);
            publisher = p;
        } else {
            ReplicationPublisher<IncrementalStream.Item> p = inc.publisher(c, streamOptions(c), FlowOptions.defaults());
            events = blocking(p);
            publisher = p;
        }
    }

    private static <T> BlockingChanges<T> blocking(ReplicationPublisher<T> p) {
        return BlockingChanges.of(p, PREFETCH, p.terminated(), () -> {
            LogicalReplicationStream s = p.stream();
            return s != null && s.eventLoop().inEventLoop();
        });
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
    private List<SourceRecord> pollSnapshot(int max, long deadline) throws InterruptedException {
        List<SourceRecord> out = new ArrayList<>();
        boolean complete;
        try {
            complete = snapshotReads.drain(out, max, Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        } catch (RuntimeException e) {
            throw new ConnectException("initial snapshot for slot " + config.slotName() + " failed (the slot is kept;"
                    + " a restart copies again and streams every change since the first copy): "
                    + ReplicationSetup.safeMessage(e, config));
        }
        for (SourceRecord r : out) acks.untracked(AckTracker.ticket(r.sourceOffset()));
        TransactionContext tx = context.transactionContext();
        if (tx != null && !out.isEmpty()) tx.commitTransaction(out.get(out.size() - 1));
        if (complete) {
            var r = snapshotReads.result();
            long from = snapshotReads.streamFrom();
            snapshotReads = null;
            written = new Position(from, -1);
            lastSentMillis = System.currentTimeMillis();
            log.info("initial snapshot done: {} rows of {} table(s); streaming from {}", r.rows(), r.tables().size(),
                    Lsn.format(from));
            if (config.snapshotMode() == PgreplConnectorConfig.SnapshotMode.INITIAL_ONLY) {
                idle = true;
                closeStream();
            } else {
                startStreaming(conn);
            }
        }
        return out.isEmpty() ? null : out;
    }

    /*
     * Connect (4.x) calls stop() only after its final offset commit, on this thread: a stop request
     * is seen only when poll() returns. So poll() waits at most poll.interval.ms in all (room for
     * more, then records), and what waits for Kafka stays within max.unacknowledged.records/.ms.
     */
    @Override
    public List<SourceRecord> poll() throws InterruptedException {
        SlotGuardTask guard = slotGuard;
        if (guard != null) guard.check();
        UnacknowledgedRecords u = unacknowledged;
        long deadline = System.nanoTime() + config.pollIntervalMs() * 1_000_000L;
        // With transaction.boundary=connector, Connect calls commitRecord only once the Kafka transaction
        // is committed: waiting in the middle of one (a large transaction handed over in parts) would wait forever.
        boolean inTransaction = lastOfCurrent != null && context.transactionContext() != null;
        int max = config.maxBatchSize();
        if (!idle && !stopping && !inTransaction) {
            long room = u.awaitRoom(config.pollIntervalMs());
            if (room == 0) return null;
            max = (int) Math.min(max, room);
        }
        List<SourceRecord> out = pollRecords(max, deadline);
        if (out != null) u.handedOver(out.size());
        return out;
    }

    private List<SourceRecord> pollRecords(int max, long deadline) throws InterruptedException {
        if (snapshotReads != null) return pollSnapshot(max, deadline);
        if (idle) {
            Thread.sleep(config.pollIntervalMs());
            return null;
        }
        List<SourceRecord> out = new ArrayList<>();
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
        int hb = config.heartbeatIntervalMs();
        long now = System.currentTimeMillis();
        if (!out.isEmpty()) {
            lastSentMillis = now;
            // Record-less transactions (an incremental snapshot's watermarks, unpublished or filtered
            // tables) are confirmed only once an offset covers them: while reads flow without a pause,
            // a heartbeat still comes every interval, or the slot would hold their WAL until a change.
            if (hb > 0 && records != null && now - lastHeartbeatMillis >= hb && acks.untrackedPast(passed)) {
                List<SourceRecord> h = heartbeat();
                if (h != null) out.addAll(h);
            }
            return out;
        }
        if (hb > 0 && now - lastSentMillis >= hb && records != null) return heartbeat();
        return null;
    }

    /**
     * A heartbeat: its offset records how far the stream has got, transactions without records
     * included ({@link #passed}), and only then may the slot be confirmed that far (see
     * {@link StartPlan}). With transaction.boundary=connector it commits its own Kafka transaction:
     * left open, it would wait for the next PostgreSQL commit and fail after transaction.timeout.ms
     * on an idle database. Never inside a transaction handed over in parts (it would split it).
     */
    private List<SourceRecord> heartbeat() {
        TransactionContext tx = context.transactionContext();
        if (tx != null && lastOfCurrent != null) return null;
        lastSentMillis = System.currentTimeMillis();
        lastHeartbeatMillis = lastSentMillis;
        long reached = Lsn.max(passed, idlePosition());
        boolean advanced = Long.compareUnsigned(reached, written.endLsn()) > 0;
        if (advanced) written = written.max(new Position(reached, -1));
        SourceRecord r = records.heartbeat(written == Position.START ? null : written, handedState);
        // Connect commits offsets in order, so the heartbeat holds back whatever is opened after it;
        // registered first, it is what the position it carries waits for: that position is
        // confirmable only once the heartbeat (its only record) and everything before it are in Kafka.
        acks.untracked(AckTracker.ticket(r.sourceOffset()));
        // Tracked from the first heartbeat whose position no transaction's entry covers (record-less
        // transactions move `written` but open no entry): confirmable once it and all before it are in Kafka.
        if (acks.open(reached)) acks.seal(reached);
        if (tx != null) tx.commitTransaction(r);
        return List.of(r);
    }

    /**
     * How far an idle stream has got (0: not known to be idle). The stream's last status-update
     * snapshot holds the server's WAL end W (a keepalive's sent position, or a sent change's; every
     * transaction ending at or below it was sent before that message) and the highest position R
     * received (a Commit message carries its transaction's end LSN, so a transaction received whole
     * but not handed over ends at or below R, above every one handed over). Once a transaction
     * ending at or after R was handed over, everything received by then was handed over, so every transaction ending before W is in Kafka or on its way, and an offset
     * at W (index -1) covers exactly what was handed over. Called only when nothing waits ahead of poll().
     */
    private long idlePosition() {
        if (pending != null || !builtAhead.isEmpty() || lastOfCurrent != null) return 0;
        ReplicationPublisher<?> p = publisher;
        LogicalReplicationStream s = p == null ? null : p.stream();
        StreamMetrics m = s == null ? null : s.metrics();
        if (m == null) return 0;
        long handed = Lsn.max(written.endLsn(), passed);
        if (Long.compareUnsigned(handed, m.receivedLsn()) < 0) return 0;
        return m.serverWalEnd();
    }

    private void handOver(Chunk c, List<SourceRecord> out) {
        handedState = c.state();
        if (c.reads()) {
            handOverReads(c, out);
            return;
        }
        if (c.open() && c.seal() && c.records().isEmpty()) {
            // Nothing of it goes to Kafka, so no offset would record it: the slot is not confirmed past
            // it until a later record's or a heartbeat's offset covers it.
            if (Long.compareUnsigned(c.lsn(), passed) > 0) passed = c.lsn();
            if (c.through() != null) written = written.max(c.through());
            return;
        }
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

    /**
     * A chunk's reads (and notifications): outside any transaction, so each holds back the next
     * transaction until Kafka has it ({@link AckTracker#untracked}); the slot is confirmed as before.
     */
    private void handOverReads(Chunk c, List<SourceRecord> out) {
        // Reads come at their chunk's high watermark, after every transaction ending at or below it:
        // a heartbeat may record that far once they are handed over (the watermarks carry no record).
        if (Long.compareUnsigned(c.lsn(), passed) > 0) passed = c.lsn();
        List<SourceRecord> rs = c.records();
        if (rs.isEmpty()) return;
        for (SourceRecord r : rs) acks.untracked(AckTracker.ticket(r.sourceOffset()));
        out.addAll(rs);
        TransactionContext tx = context.transactionContext();
        if (tx != null) tx.commitTransaction(rs.get(rs.size() - 1));
    }

    @Override
    public void commitRecord(SourceRecord record, RecordMetadata metadata) {
        unacknowledged.acknowledged();
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
        ReplicationPublisher<?> p = publisher;
        LogicalReplicationStream s = p == null ? null : p.stream();
        if (confirm != 0 && s != null) s.acknowledge(confirm);
    }

    /**
     * Returns at once. Connect (4.x) calls it on the task thread after its final offset commit (see
     * {@link UnacknowledgedRecords} for what has to fit in task.shutdown.graceful.timeout.ms before),
     * and a cancelled task's thread may still be in it: the connection is closed without a goodbye,
     * which ends the stream or the copy on the server too, and whatever waits for their ends (the
     * copy's workers, the stream's termination) does so on a thread of its own. A graceful stop of
     * the stream would wait for the walsender to read our CopyDone, which it does not while it is
     * blocked sending a large transaction to a socket nobody reads any more.
     */
    @Override
    public void stop() {
        stopping = true;
        SlotConnectMetrics sm = slotMetrics;
        if (sm != null) java.util.concurrent.CompletableFuture.runAsync(sm::close); // a poll may be under way: stop() does not wait for it
        SlotGuardTask sg = slotGuard;
        if (sg != null) java.util.concurrent.CompletableFuture.runAsync(sg::close);
        StreamBuilder b = builder;
        if (b != null) b.interrupt();
        PgConnection c = conn;
        if (c != null) c.close();
        SnapshotReads sr = snapshotReads;
        if (sr != null) sr.closeNow();
        KafkaSignals ks = kafkaSignals;
        if (ks != null) ks.close();
        Thread closer = new Thread(this::closeStream, "pgrepl-stop-" + (config == null ? "" : config.slotName()));
        closer.setDaemon(true);
        closer.start();
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
        BlockingChanges<?> e = events;
        if (e != null) {
            try {
                e.close();
            } catch (RuntimeException ignored) {
                // the stream's own failure was already reported
            }
        }
        PgConnection c = conn;
        if (c != null) c.close();
        IncrementalStream inc = incremental;
        if (inc != null) inc.close();
    }
}
