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
import io.pgrepl.client.stream.ReconnectPolicy;
import io.pgrepl.client.stream.ReplicationProtocolException;
import io.pgrepl.client.stream.ReplicationSlotException;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.client.stream.StreamMetrics;
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
    /** Handed over, not yet acknowledged: poll() waits at max.unacknowledged.records (see there why). */
    private volatile UnacknowledgedRecords unacknowledged;
    private volatile PgConnection conn;
    private volatile ReplicationPublisher<TxEvent> publisher;
    private volatile BlockingChanges<TxEvent> events;
    private volatile boolean stopping;
    /** The slot's own figures as task metrics (slot.metrics.interval.ms), or null. */
    private volatile SlotConnectMetrics slotMetrics;
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
    private final ReconnectBudget budget = ReconnectBudget.defaults();
    /** Builder thread: why the last reconnect could not even open a stream. */
    private RuntimeException lastOpenFailure;

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
        unacknowledged = new UnacknowledgedRecords(config.maxUnacknowledgedRecords());
        partition = Map.of("server", config.topicPrefix());
        slotMetrics = SlotConnectMetrics.start(context, config);
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
                case SNAPSHOT_NEW_SLOT -> {
                    if (!config.slotCreate()) {
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

    private LogicalReplicationOptions streamOptions(PgConnection c) {
        return StreamSettings.options(config, c.serverMajor());
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

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
        UnacknowledgedRecords u = unacknowledged;
        // With transaction.boundary=connector, Connect calls commitRecord only once the Kafka transaction
        // is committed: waiting in the middle of one (a large transaction handed over in parts) would wait forever.
        boolean inTransaction = lastOfCurrent != null && context.transactionContext() != null;
        if (!idle && !stopping && !inTransaction && !u.awaitRoom(config.pollIntervalMs())) return null;
        List<SourceRecord> out = pollRecords();
        if (out != null) u.handedOver(out.size());
        return out;
    }

    private List<SourceRecord> pollRecords() throws InterruptedException {
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
        if (hb > 0 && System.currentTimeMillis() - lastSentMillis >= hb && records != null) return heartbeat();
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
        long reached = Lsn.max(passed, idlePosition());
        boolean advanced = Long.compareUnsigned(reached, written.endLsn()) > 0;
        if (advanced) written = written.max(new Position(reached, -1));
        SourceRecord r = records.heartbeat(written == Position.START ? null : written);
        // Connect commits offsets in order, so the heartbeat holds back whatever is opened after it;
        // registered first, it is what the position it carries waits for: that position is
        // confirmable only once the heartbeat (its only record) and everything before it are in Kafka.
        acks.untracked(AckTracker.ticket(r.sourceOffset()));
        if (advanced && acks.open(reached)) acks.seal(reached);
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
        ReplicationPublisher<TxEvent> p = publisher;
        LogicalReplicationStream s = p == null ? null : p.stream();
        StreamMetrics m = s == null ? null : s.metrics();
        if (m == null) return 0;
        long handed = Lsn.max(written.endLsn(), passed);
        if (Long.compareUnsigned(handed, m.receivedLsn()) < 0) return 0;
        return m.serverWalEnd();
    }

    private void handOver(Chunk c, List<SourceRecord> out) {
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

    /** The builder thread: until stop(), or a failure that is not retried (handed to poll() to throw). */
    private void buildLoop() {
        try {
            while (!stopping) {
                try {
                    BlockingChanges<TxEvent> e = events;
                    if (e == null) {
                        RuntimeException f = lastOpenFailure;
                        throw f != null ? f : new ConnectException("not connected (the last reconnect failed)");
                    }
                    TxEvent ev = e.poll(Duration.ofMillis(config.pollIntervalMs()));
                    if (ev == null) continue;
                    budget.succeeded();
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
            // A message outside any transaction is a transaction of its own in Kafka too.
            deliver(new Chunk(lsn, true, true, true, chunk, through, null));
        }
        // Two-phase outcomes do not occur: two_phase is not requested.
    }

    /** Waits for room ahead of poll() (the stream waits meanwhile: its prefetch is bounded too). */
    private void deliver(Chunk c) throws InterruptedException {
        while (!builtAhead.offer(c, 100, TimeUnit.MILLISECONDS)) {
            if (stopping) throw new InterruptedException("stopping");
        }
    }

    /**
     * A lost stream resumes from the slot; what was handed over already is skipped by position. A
     * slot held by another connection (a walsender that has not noticed its peer died yet, up to
     * wal_sender_timeout) is waited for up to {@link ReconnectPolicy#DEFAULT_SLOT_IN_USE_WAIT}
     * without counting as a failure; a failed reconnect counts once (when its failure comes back here).
     */
    private void reconnect(RuntimeException cause) throws InterruptedException {
        if (stopping) return;
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
        closeStream();
        if (current != null) {
            current.close();
            current = null;
        }
        Thread.sleep(Math.min(5000, 250L << Math.min(Math.max(1, budget.failures()), 5)));
        try {
            openStream();
        } catch (RuntimeException e) {
            log.warn("reconnecting slot {} failed: {}", config.slotName(), ReplicationSetup.safeMessage(e, config));
            events = null;
            lastOpenFailure = e; // counted when buildLoop hands it back here
        }
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
        ReplicationPublisher<TxEvent> p = publisher;
        LogicalReplicationStream s = p == null ? null : p.stream();
        if (confirm != 0 && s != null) s.acknowledge(confirm);
    }

    /**
     * Returns at once (Connect allows 5 s, task.shutdown.graceful.timeout.ms, for the task thread to
     * finish and commit its offsets): the connection is closed without a goodbye, which ends the
     * stream or the copy on the server too, and whatever waits for their ends (the copy's workers,
     * the stream's termination) does so on a thread of its own. A graceful stop of the stream would
     * wait for the walsender to read our CopyDone, which it does not while it is blocked sending a
     * large transaction to a socket nobody reads any more.
     */
    @Override
    public void stop() {
        stopping = true;
        SlotConnectMetrics sm = slotMetrics;
        if (sm != null) java.util.concurrent.CompletableFuture.runAsync(sm::close); // a poll may be under way: stop() does not wait for it
        Thread b = builder;
        if (b != null) b.interrupt();
        PgConnection c = conn;
        if (c != null) c.close();
        SnapshotReads sr = snapshotReads;
        if (sr != null) sr.closeNow();
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
