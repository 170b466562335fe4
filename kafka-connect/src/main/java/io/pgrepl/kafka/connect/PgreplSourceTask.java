package io.pgrepl.kafka.connect;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.blocking.BlockingChanges;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.reactive.ReactiveReplication;
import io.pgrepl.client.reactive.ReplicationPublisher;
import io.pgrepl.client.replication.SnapshotMode;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.tx.TxEvent;
import io.pgrepl.codec.Lsn;
import io.pgrepl.kafka.connect.metrics.CapturedTables;
import io.pgrepl.kafka.connect.metrics.ConnectorMetrics;
import io.pgrepl.kafka.connect.metrics.MetricNames;
import io.pgrepl.kafka.connect.metrics.Queue;
import io.pgrepl.kafka.connect.notifications.JmxNotifications;
import io.pgrepl.kafka.connect.notifications.NotificationChannels;
import io.pgrepl.kafka.connect.offsets.AckTracker;
import io.pgrepl.kafka.connect.offsets.Position;
import io.pgrepl.kafka.connect.offsets.SignalOffsets;
import io.pgrepl.kafka.connect.offsets.UnacknowledgedRecords;
import io.pgrepl.kafka.connect.records.ChangeRecords;
import io.pgrepl.kafka.connect.records.TableCatalog;
import io.pgrepl.kafka.connect.records.Reselect;
import io.pgrepl.kafka.connect.records.SourceInfo;
import io.pgrepl.kafka.connect.signals.FileSignals;
import io.pgrepl.kafka.connect.signals.JmxSignals;
import io.pgrepl.kafka.connect.signals.KafkaSignals;
import io.pgrepl.kafka.connect.signals.SignalCommits;
import io.pgrepl.kafka.connect.snapshot.IncrementalReads;
import io.pgrepl.kafka.connect.snapshot.IncrementalSettings;
import io.pgrepl.kafka.connect.snapshot.IncrementalSetup;
import io.pgrepl.kafka.connect.snapshot.IncrementalStream;
import io.pgrepl.kafka.connect.snapshot.MaximumKeys;
import io.pgrepl.kafka.connect.snapshot.NotifiedKeys;
import io.pgrepl.kafka.connect.snapshot.SnapshotNotifications;
import io.pgrepl.kafka.connect.snapshot.SnapshotReads;
import io.pgrepl.kafka.connect.values.CatalogTypes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;
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
 * That bookkeeping, and the heartbeats, are {@link Handover}'s; this class decides how a start
 * goes ({@link StartPlan}), opens the stream or the copy, and stops them.
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

    private PgreplConnectorConfig config;
    private Map<String, String> partition;
    private ChangeRecords records;
    /** Chunks handed to Connect, offsets, heartbeats, slot confirmations; created by start(). */
    private volatile Handover handover;
    /** Handed over, not yet acknowledged: poll() waits at max.unacknowledged.records/.ms (see there why). */
    private volatile UnacknowledgedRecords unacknowledged;
    private volatile PgConnection conn;
    /** TxEvents, or {@link IncrementalStream.Item}s when incremental snapshots can run. */
    private volatile BlockingChanges<?> events;
    /** The incremental snapshot engine around the stream, or null (see {@link IncrementalSettings#enabled}). */
    private volatile IncrementalStream incremental;
    /** Builder thread: the incremental items' records and offsets. */
    private IncrementalReads incrementalReads;
    /** The kafka signal channel's consumer, or null. */
    private volatile KafkaSignals kafkaSignals;
    /** The file signal channel's reader, or null. */
    private volatile FileSignals fileSignals;
    /** The jmx signal channel's bean, or null. */
    private volatile JmxSignals jmxSignals;
    /** The jmx and log notification channels (none on: nothing to send). */
    private volatile NotificationChannels notificationChannels;
    /** What the kafka signal channel's group may be committed to, from the records' acknowledgements; or null. */
    private volatile SignalCommits signalCommits;
    private volatile boolean stopping;
    /** The slot's own figures as task metrics (slot.metrics.interval.ms), or null. */
    private volatile SlotConnectMetrics slotMetrics;
    /** slot.guard.* thresholds at work, or null. */
    private volatile SlotGuardTask slotGuard;
    /** The initial snapshot while it runs; heartbeats and slot confirmations wait for it. */
    private volatile SnapshotReads snapshotReads;
    /** initial_only after its snapshot: nothing more to produce. */
    private volatile boolean idle;
    /** The builder thread: turns the stream into chunks ahead of poll() (see {@link Handover}). */
    private volatile StreamBuilder builder;
    /** reselect.unavailable.values, or null. */
    private volatile Reselect reselect;
    /** Debezium's JMX beans (context=snapshot and streaming); created by start(). */
    private volatile ConnectorMetrics metrics;

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
        metrics = ConnectorMetrics.start(config.topicPrefix(), config.getString(MetricNames.CUSTOM_METRIC_TAGS), config.slotName(),
                config.getBoolean(MetricNames.ADVANCED_METRICS));
        try {
            notificationChannels = notificationChannels(config);
        } catch (IllegalArgumentException e) { // custom.metric.tags that make no management bean name
            metrics.close();
            throw new ConnectException(e.getMessage(), e);
        }
        slotGuard = SlotGuardTask.start(config);
        if (config.reselectUnavailableValues()) reselect = new Reselect(config);
        Map<String, Object> stored = context.offsetStorageReader().offset(partition);
        boolean interrupted = Position.snapshotInterrupted(stored);
        Position resume = interrupted ? Position.START : Position.fromOffset(stored);
        Takeover takeover = Takeover.of(stored, config);
        log.info("pgrepl task for slot {} resuming after {}{}", config.slotName(), resume.describe(),
                interrupted ? "; its initial snapshot was interrupted" : "");
        PgConnection c;
        try {
            c = ReplicationSetup.connect(config);
        } catch (RuntimeException e) {
            metrics.close();
            closeChannels();
            throw e;
        }
        try {
            if (takeover != null) takeover.check(c);
            ReplicationSetup.ensurePublication(c, config);
            List<String> captured = CapturedTables.of(c, config);
            metrics.capturedTables(captured);
            if (records == null) {
                records = new ChangeRecords(config, partition, ReplicationSetup.currentDatabase(c, config),
                        CatalogTypes.load((sql, what) -> ReplicationSetup.await(c.query(sql), config, what),
                                (sql, what) -> ReplicationSetup.queryOnce(config, sql, what)), new TableCatalog(config)::of);
            }
            if (handover == null) handover = new Handover(context, records, config.heartbeatIntervalMs());
            Handover h = handover;
            h.written(resume);
            records.resumeAfter(resume);
            if (io.pgrepl.kafka.connect.offsets.DebeziumOffsets.streaming(stored)) {
                records.continuing(stored.get(io.pgrepl.kafka.connect.records.TransactionMetadata.OFFSET_TRANSACTION_ID));
            }
            ReplicationSetup.SlotInfo slot = ReplicationSetup.slot(c, config);
            if (slot != null) ReplicationSetup.requireLogicalPgoutput(slot, config);
            StartPlan plan = StartPlan.decide(config.snapshotMode(), config.slotLostHandling(), stored,
                    slot == null ? null : slot.positions(), config.slotName());
            if (IncrementalSettings.enabled(config)) {
                startIncremental(c, stored, plan);
                if (takeover != null) takeover.resumeIncremental(incremental.engine());
            }
            switch (plan.action()) {
                case IDLE -> {
                    log.info("snapshot.mode=initial_only and the snapshot is complete: the task stays idle");
                    metrics.snapshotSkipped();
                    idle = true;
                    c.close();
                    return;
                }
                case STREAM -> {
                    metrics.snapshotSkipped();
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
            if (plan.action() == StartPlan.Action.SNAPSHOT_EXISTING_SLOT || h.written() != Position.START) {
                log.warn("slot {}: {}; copying every table again{}", config.slotName(), plan.why(),
                        plan.action() == StartPlan.Action.SNAPSHOT_EXISTING_SLOT ? " under a fresh snapshot, keeping the slot,"
                                + " then streaming from " + Lsn.format(plan.streamFrom()) : "");
            }
            h.written(Position.START);
            records.resumeAfter(Position.START);
            conn = c;
            metrics.snapshotStarted(captured);
            notificationChannels.initialSnapshot("STARTED", config.topicPrefix());
            SnapshotReads sr = SnapshotReads.start(c, config, streamOptions(c), plan, records);
            snapshotReads = sr;
            metrics.queue(sr.queue());
            log.info("initial snapshot of publication {} started (slot {}, {} worker(s))", config.publicationName(),
                    config.slotName(), config.snapshotMaxThreads());
        } catch (RuntimeException e) {
            conn = null;
            c.close();
            metrics.close(); // Connect does not stop a task whose start() failed
            closeChannels();
            throw e;
        }
    }

    /**
     * The engine around the stream, resuming from the state in the stored offsets; the signal table
     * checked. When {@code plan} reads every table again (a lost slot under slot.lost.handling=snapshot
     * or when_needed), the stored progress is dropped: it describes tables read before the changes the
     * slot lost, and a table resumed mid-way would never read again the rows before its last key. The
     * kafka signal channel's position is kept, so no signal is acted on twice.
     */
    private void startIncremental(PgConnection c, Map<String, Object> stored, StartPlan plan) {
        IncrementalSetup.checkSignalTable(c, config);
        String resume = Position.incrementalState(stored);
        if (resume != null && plan.readsEveryTable() && !IncrementalReads.EMPTY.equals(SignalOffsets.engineState(resume))) {
            log.warn("slot {}: {}; the incremental snapshot progress in the stored offsets is dropped: every table is read"
                    + " again from its start", config.slotName(), plan.why());
            resume = SignalOffsets.withoutProgress(resume, IncrementalReads.EMPTY);
        }
        if (incremental == null) incremental = new IncrementalStream(IncrementalSettings.options(config, SignalOffsets.engineState(resume)));
        SlotGuardTask guard = slotGuard;
        if (guard != null) guard.snapshot(incremental.engine().guardControl()); // hold or abort reads before failing the task
        String topic = IncrementalSettings.notificationTopic(config);
        NotifiedKeys keys = new NotifiedKeys(config.columnRules());
        NotificationChannels channels = notificationChannels.any() ? notificationChannels : null;
        incrementalReads = new IncrementalReads(records, topic == null && channels == null ? null : new SnapshotNotifications(topic,
                channels, config.topicPrefix(), partition, new MaximumKeys(config, keys, rel -> IncrementalReads.keyColumns(records, rel))::of), keys, resume,
                config.slotName(), IncrementalSettings.failureHandling(config));
        incrementalReads.onProgress(metrics::incrementalProgress);
        if (resume != null) log.info("slot {}: resuming incremental snapshots from the stored offsets", config.slotName());
        if (IncrementalSettings.kafkaChannel(config) && kafkaSignals == null) {
            signalCommits = new SignalCommits();
            kafkaSignals = KafkaSignals.start(config, incremental.engine(), incremental.nextSignal(), SignalOffsets.next(resume));
        }
        if (IncrementalSettings.jmxChannel(config) && jmxSignals == null) {
            jmxSignals = JmxSignals.start(incremental.engine(), config.topicPrefix(), customTags(config), config.slotName());
        }
        if (IncrementalSettings.fileChannel(config) && fileSignals == null) {
            fileSignals = FileSignals.start(incremental.engine(), java.nio.file.Path.of(config.getString(IncrementalSettings.SIGNAL_FILE)),
                    config.getLong(IncrementalSettings.SIGNAL_POLL_INTERVAL), config.slotName());
        }
    }

    private static java.util.Map<String, String> customTags(PgreplConnectorConfig c) {
        return MetricNames.customTags(c.getString(MetricNames.CUSTOM_METRIC_TAGS));
    }

    private static NotificationChannels notificationChannels(PgreplConnectorConfig c) {
        return new NotificationChannels(IncrementalSettings.jmxNotifications(c) ? JmxNotifications.start(c.topicPrefix(), customTags(c)) : null,
                IncrementalSettings.logNotifications(c));
    }

    /** The jmx and file signal channels and the notification beans away (stop, or a failed start). */
    private void closeChannels() {
        FileSignals fs = fileSignals;
        if (fs != null) fs.close();
        JmxSignals js = jmxSignals;
        if (js != null) js.close();
        NotificationChannels nc = notificationChannels;
        if (nc != null) nc.close();
    }

    /**
     * snapshot.initial.method=incremental: no exported snapshot; the slot streams from its position
     * (created now, or kept) and every published table is read in chunks beside the stream.
     */
    private void startIncrementalLoad(PgConnection c, StartPlan plan) {
        ReplicationSetup.ensureSlot(c, config, SnapshotMode.NOTHING);
        List<String> tables = IncrementalSetup.initialTables(c, config);
        log.info("slot {}: {}; initial load by incremental snapshot of {} table(s)", config.slotName(), plan.why(), tables.size());
        handover.written(Position.START);
        records.resumeAfter(Position.START);
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
        StreamBuilder b = new StreamBuilder(config, records, incrementalReads, handover.builtAhead(), handover.written(), new StreamBuilder.Link() {
            @Override public BlockingChanges<?> events() { return events; }
            @Override public void reopen() { openStream(); }
            @Override public void lost() { events = null; metrics.connected(false); }
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
            handover.streaming(p);
        } else {
            ReplicationPublisher<IncrementalStream.Item> p = inc.publisher(c, streamOptions(c), FlowOptions.defaults());
            events = blocking(p);
            handover.streaming(p);
        }
        metrics.queue(builtAhead(handover.builtAhead(), config.maxBatchSize()));
        metrics.connected(true);
    }

    /** The chunks built ahead of poll() as Debezium's queue: records waiting, and room for as many chunks as it takes. */
    private static Queue builtAhead(java.util.concurrent.BlockingQueue<Chunk> q, int maxBatchSize) {
        int capacity = (q.size() + q.remainingCapacity()) * maxBatchSize;
        return new Queue() {
            @Override public int capacity() { return capacity; }

            @Override
            public int waiting() {
                int n = 0;
                for (Chunk c : q) n += c.records().size();
                return n;
            }
        };
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
            metrics.snapshotAborted();
            notificationChannels.initialSnapshot("ABORTED", config.topicPrefix());
            throw new ConnectException("initial snapshot for slot " + config.slotName() + " failed (the slot is kept;"
                    + " a restart copies again and streams every change since the first copy): "
                    + ReplicationSetup.safeMessage(e, config));
        }
        handover.readsHandedOver(out);
        metrics.snapshotHandedOver(out);
        if (complete) {
            metrics.snapshotCompleted();
            notificationChannels.initialSnapshot("COMPLETED", config.topicPrefix());
            var r = snapshotReads.result();
            long from = snapshotReads.streamFrom();
            snapshotReads = null;
            handover.snapshotDone(from);
            records.resumeAfter(handover.written());
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
        boolean inTransaction = handover.inTransaction() && context.transactionContext() != null;
        int max = config.maxBatchSize();
        if (!idle && !stopping && !inTransaction) {
            long room = u.awaitRoom(config.pollIntervalMs());
            if (room == 0) return null;
            max = (int) Math.min(max, room);
        }
        List<SourceRecord> out = pollRecords(max, deadline);
        Reselect rs = reselect;
        if (rs != null) rs.fill(out); // here, on the task thread: never on the stream's event loop
        if (out != null) u.handedOver(out.size());
        SignalCommits sc = signalCommits;
        if (sc != null && out != null) sc.handedOver(out);
        return out;
    }

    private List<SourceRecord> pollRecords(int max, long deadline) throws InterruptedException {
        if (snapshotReads != null) return pollSnapshot(max, deadline);
        if (idle) {
            Thread.sleep(config.pollIntervalMs());
            return null;
        }
        Handover h = handover;
        List<SourceRecord> out = new ArrayList<>();
        boolean more = true;
        while (more && !stopping) more = h.next(out, max, deadline);
        metrics.streamingHandedOver(out);
        return h.withHeartbeat(out);
    }


    @Override
    public void commitRecord(SourceRecord record, RecordMetadata metadata) {
        unacknowledged.acknowledged();
        handover.acknowledged(record);
        SignalCommits sc = signalCommits;
        if (sc != null) sc.acknowledged(record);
    }

    /** Offsets were committed: confirm what they cover ({@link AckTracker#offsetsCommitted}). */
    @Override
    public void commit() {
        Handover h = handover;
        if (h != null) h.offsetsCommitted(); // null: start() failed before anything was handed over
        SignalCommits sc = signalCommits;
        KafkaSignals ks = kafkaSignals;
        if (sc != null && ks != null) {
            long next = sc.offsetsCommitted();
            if (next >= 0) ks.offsetsCommitted(next);
        }
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
        closeChannels();
        Reselect rs = reselect;
        if (rs != null) rs.close();
        ConnectorMetrics m = metrics;
        if (m != null) m.close();
        PgreplConnectorConfig cfg = config;
        Runnable close = cfg != null && cfg.slotDropOnStop() ? () -> {
            closeStream();
            ReplicationSetup.dropSlotOnStop(cfg);
        } : this::closeStream;
        Thread closer = new Thread(close, "pgrepl-stop-" + (cfg == null ? "" : cfg.slotName()));
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
        ConnectorMetrics m = metrics;
        if (m != null) m.connected(false);
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
