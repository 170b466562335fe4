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
 */
public final class PgreplSourceTask extends SourceTask {
    private static final Logger log = LoggerFactory.getLogger(PgreplSourceTask.class);
    private static final int PREFETCH = 16;
    private static final int MAX_CONSECUTIVE_FAILURES = 10;

    private PgreplConnectorConfig config;
    private Map<String, String> partition;
    private ChangeRecords records;
    private final AckTracker acks = new AckTracker();
    private volatile PgConnection conn;
    private volatile ReplicationPublisher<TxEvent> publisher;
    private volatile BlockingChanges<TxEvent> events;
    private volatile boolean stopping;
    /** The last position handed to Connect (or stored in the offsets at start): resends up to it are skipped. */
    private Position written = Position.START;
    private long confirmCandidate;

    private Transaction current;
    private Iterator<PgOutputRecord> currentChanges;
    private SourceRecord lastOfCurrent;
    private long lastSentMillis = System.currentTimeMillis();
    private int failures;

    @Override
    public String version() {
        return SourceInfo.VERSION;
    }

    @Override
    public void start(Map<String, String> props) {
        config = new PgreplConnectorConfig(props);
        if (config.snapshotMode() != PgreplConnectorConfig.SnapshotMode.NEVER && InitialSnapshot.find().isEmpty()) {
            throw new ConnectException(PgreplConnectorConfig.SNAPSHOT_MODE + "=" + config.getString(
                    PgreplConnectorConfig.SNAPSHOT_MODE) + " needs an initial snapshot implementation, which this build "
                    + "does not include; set snapshot.mode=never");
        }
        partition = Map.of("server", config.topicPrefix());
        written = Position.fromOffset(context.offsetStorageReader().offset(partition));
        log.info("pgrepl task for slot {} resuming after {} (record {})", config.slotName(), Lsn.format(written.endLsn()),
                written.index());
        openStream(true);
    }

    private void openStream(boolean setUp) {
        PgConnection c = ReplicationSetup.connect(config);
        try {
            if (setUp) {
                ReplicationSetup.ensurePublication(c, config);
                ReplicationSetup.ensureSlot(c, config, SnapshotMode.NOTHING);
            }
            if (records == null) records = new ChangeRecords(config, partition, ReplicationSetup.currentDatabase(c, config));
            LogicalReplicationOptions opts = LogicalReplicationOptions.builder(config.slotName())
                    .publications(config.publicationName())
                    .streaming(streaming(c.serverMajor()))
                    .messages(!config.messagesTopic().isEmpty() && c.serverMajor() >= 14 ? Boolean.TRUE : null)
                    .build();
            ReplicationPublisher<TxEvent> p = ReactiveReplication.transactions(c, opts, FlowOptions.defaults());
            events = BlockingChanges.of(p, PREFETCH, p.terminated(), () -> {
                LogicalReplicationStream s = p.stream();
                return s != null && s.eventLoop().inEventLoop();
            });
            publisher = p;
            conn = c;
        } catch (RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /** streaming=on/parallel asks for what the server offers up to that (14+ on, 16+ parallel). */
    private StreamingMode streaming(int major) {
        StreamingMode asked = config.streaming();
        if (major < 14) return null; // the option does not exist there
        if (asked == StreamingMode.OFF) return StreamingMode.OFF;
        if (asked == StreamingMode.PARALLEL && major >= 16) return StreamingMode.PARALLEL;
        return StreamingMode.ON;
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
        List<SourceRecord> out = new ArrayList<>();
        int max = config.maxBatchSize();
        long deadline = System.nanoTime() + config.pollIntervalMs() * 1_000_000L;
        try {
            while (out.size() < max && !stopping) {
                if (current != null) {
                    drainCurrent(out, max);
                    continue;
                }
                long wait = out.isEmpty() ? Math.max(0, deadline - System.nanoTime()) : 0;
                BlockingChanges<TxEvent> e = events;
                if (e == null) throw new ConnectException("not connected (the last reconnect failed)");
                TxEvent ev = e.poll(Duration.ofNanos(wait));
                if (ev == null) break;
                failures = 0;
                accept(ev, out);
            }
        } catch (NoSuchElementException ended) {
            reconnect(new ConnectException("the replication stream ended"));
        } catch (RuntimeException e) {
            reconnect(e);
        }
        if (!out.isEmpty()) {
            lastSentMillis = System.currentTimeMillis();
            return out;
        }
        int hb = config.heartbeatIntervalMs();
        if (hb > 0 && System.currentTimeMillis() - lastSentMillis >= hb && records != null) {
            lastSentMillis = System.currentTimeMillis();
            return List.of(records.heartbeat(written == Position.START ? null : written));
        }
        return null;
    }

    private void accept(TxEvent ev, List<SourceRecord> out) {
        if (ev instanceof Transaction t) {
            records.begin(t.endLsn(), t.commitLsn(), t.xid(), t.commitTimeMicros());
            acks.open(t.endLsn());
            current = t;
            currentChanges = t.changes().iterator();
            lastOfCurrent = null;
            drainCurrent(out, config.maxBatchSize());
        } else if (ev instanceof NonTransactionalMessage m) {
            long lsn = m.ackLsn();
            records.beginStandalone(lsn);
            acks.open(lsn);
            records.accept(m.message(), written, r -> {
                out.add(r);
                acks.produced(lsn);
            });
            written = written.max(new Position(lsn, records.index() - 1));
            acks.seal(lsn);
        }
        // Two-phase outcomes do not occur: two_phase is not requested.
    }

    private void drainCurrent(List<SourceRecord> out, int max) {
        long lsn = current.endLsn();
        while (out.size() < max && currentChanges.hasNext()) {
            records.accept(currentChanges.next(), written, r -> {
                out.add(r);
                acks.produced(lsn);
                lastOfCurrent = r;
            });
        }
        if (records.index() > 0) written = written.max(new Position(lsn, records.index() - 1));
        if (currentChanges.hasNext()) return;
        acks.seal(lsn);
        current.close();
        TransactionContext tx = context.transactionContext();
        if (tx != null && lastOfCurrent != null) tx.commitTransaction(lastOfCurrent);
        current = null;
        currentChanges = null;
        lastOfCurrent = null;
    }

    /** A lost stream resumes from the slot; what was handed over already is skipped by position. */
    private void reconnect(RuntimeException cause) throws InterruptedException {
        if (stopping) return;
        String why = ReplicationSetup.safeMessage(cause, config);
        // Deterministic failures (bad frames, options the server refuses) are not retried.
        if (cause instanceof ReplicationProtocolException || cause instanceof PgClientException
                || cause instanceof IllegalArgumentException || ++failures > MAX_CONSECUTIVE_FAILURES) {
            throw new ConnectException("replication from slot " + config.slotName() + " failed: " + why);
        }
        log.warn("replication stream of slot {} failed ({}); reconnecting (attempt {})", config.slotName(), why, failures);
        closeStream();
        if (current != null) {
            current.close();
            current = null;
            currentChanges = null;
        }
        Thread.sleep(Math.min(5000, 250L << Math.min(failures, 5)));
        try {
            openStream(false);
        } catch (RuntimeException e) {
            log.warn("reconnecting slot {} failed: {}", config.slotName(), ReplicationSetup.safeMessage(e, config));
            events = null;
            if (++failures > MAX_CONSECUTIVE_FAILURES) throw e;
        }
    }

    @Override
    public void commitRecord(SourceRecord record, RecordMetadata metadata) {
        if (record.topic().startsWith(ChangeRecords.HEARTBEAT_TOPIC_PREFIX)) return;
        Map<String, ?> offset = record.sourceOffset();
        if (offset != null && offset.get(Position.LSN_COMMIT) instanceof Number lsn) acks.acknowledged(lsn.longValue());
    }

    /**
     * Offsets were committed: confirm what was wholly in Kafka when the previous commit happened
     * (so every offset covering it is committed now), and remember what is wholly in Kafka now.
     */
    @Override
    public void commit() {
        long confirm = confirmCandidate;
        confirmCandidate = acks.confirmable();
        ReplicationPublisher<TxEvent> p = publisher;
        LogicalReplicationStream s = p == null ? null : p.stream();
        if (confirm != 0 && s != null) s.acknowledge(confirm);
    }

    @Override
    public void stop() {
        stopping = true;
        closeStream();
    }

    private void closeStream() {
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
