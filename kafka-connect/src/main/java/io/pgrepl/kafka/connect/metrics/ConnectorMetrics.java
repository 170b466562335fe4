package io.pgrepl.kafka.connect.metrics;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.management.InstanceAlreadyExistsException;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A task's two beans in the platform MBean server, under Debezium's names ({@link MetricNames}),
 * and what the task tells them: the snapshot's start and end, the stream's connection, the records
 * handed to Kafka Connect.
 *
 * <p>Registration runs on a thread of its own, so that a name still held (a task stopped by
 * Connect that has not unregistered yet, or a Debezium connector with the same topic.prefix in
 * the worker) delays the beans, not the task: it is tried again every 5 s, 12 times, as Debezium
 * does, then given up with an error in the log. The beans count from the start either way.
 */
public final class ConnectorMetrics implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ConnectorMetrics.class);
    private static final int ATTEMPTS = 12;
    private static final Duration RETRY = Duration.ofSeconds(5);

    private final SnapshotMetrics snapshot = new SnapshotMetrics();
    private final StreamingMetrics streaming;
    private final ObjectName snapshotName;
    private final ObjectName streamingName;
    private final Thread registration;
    private boolean snapshotRegistered;
    private boolean streamingRegistered;
    private boolean closed;

    private ConnectorMetrics(ObjectName snapshotName, ObjectName streamingName, String slot, boolean perTable) {
        this.streaming = new StreamingMetrics(perTable);
        this.snapshotName = snapshotName;
        this.streamingName = streamingName;
        this.registration = new Thread(this::register, "pgrepl-metrics-" + slot);
        registration.setDaemon(true);
    }

    /**
     * Creates the beans of a task and starts registering them.
     *
     * @param topicPrefix the connector's topic.prefix (the names' {@code server})
     * @param customTags  custom.metric.tags as set, or null
     * @param slot        the task's slot (its thread's name)
     * @param perTable    advanced.metrics.enable: the streaming bean counts per table
     * @return the beans; {@link #close()} unregisters them
     */
    public static ConnectorMetrics start(String topicPrefix, String customTags, String slot, boolean perTable) {
        Map<String, String> tags = MetricNames.customTags(customTags);
        ConnectorMetrics m = new ConnectorMetrics(MetricNames.of(topicPrefix, MetricNames.SNAPSHOT, tags),
                MetricNames.of(topicPrefix, MetricNames.STREAMING, tags), slot, perTable);
        m.registration.start();
        return m;
    }

    public ObjectName snapshotName() { return snapshotName; }

    public ObjectName streamingName() { return streamingName; }

    /** The captured tables, {@code schema.table}, for both beans. */
    public void capturedTables(List<String> tables) {
        snapshot.capturedTables(tables);
        streaming.capturedTables(tables);
    }

    /** The queue ahead of poll() now (the snapshot's, then the stream's). */
    public void queue(Queue q) {
        snapshot.queue(q);
        streaming.queue(q);
    }

    /** The initial snapshot starts copying {@code tables} ({@code schema.table}). */
    public void snapshotStarted(List<String> tables) {
        snapshot.started(tables);
    }

    /** The initial snapshot's last read was handed over. */
    public void snapshotCompleted() {
        snapshot.completed();
    }

    /** The task stops, or the copy failed, before the snapshot's end (nothing when none runs). */
    public void snapshotAborted() {
        snapshot.aborted();
    }

    /**
     * A table's incremental snapshot progressed (builder thread).
     *
     * @param nothingLeft no table runs or waits after it: the incremental snapshot is over
     */
    public void incrementalProgress(io.pgrepl.client.snapshot.incremental.TableProgress p, boolean nothingLeft) {
        snapshot.incremental(p, nothingLeft);
    }

    /** The task starts without a snapshot. */
    public void snapshotSkipped() {
        snapshot.skipped();
    }

    /** Whether the replication stream is up. */
    public void connected(boolean c) {
        streaming.connected(c);
    }

    /** The snapshot's reads handed to Kafka Connect. */
    public void snapshotHandedOver(List<SourceRecord> records) {
        if (records != null && !records.isEmpty()) snapshot.handedOver(records, System.currentTimeMillis());
    }

    /** The stream's records handed to Kafka Connect (an incremental snapshot's reads among them). */
    public void streamingHandedOver(List<SourceRecord> records) {
        if (records != null && !records.isEmpty()) streaming.handedOver(records, System.currentTimeMillis());
    }

    private void register() {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        for (int attempt = 1; attempt <= ATTEMPTS; attempt++) {
            synchronized (this) {
                if (closed) return;
                try {
                    if (!snapshotRegistered) {
                        server.registerMBean(snapshot, snapshotName);
                        snapshotRegistered = true;
                    }
                    if (!streamingRegistered) {
                        server.registerMBean(streaming, streamingName);
                        streamingRegistered = true;
                    }
                    return;
                } catch (InstanceAlreadyExistsException e) {
                    if (attempt == ATTEMPTS) {
                        log.error("the metrics beans {} and {} stay unregistered: the names were still in use after {} attempts",
                                snapshotName, streamingName, ATTEMPTS);
                        return;
                    }
                    log.warn("metrics bean {} is still registered (a task stopping, or another connector with the same"
                            + " topic.prefix); trying again in {} s (attempt {} of {})", e.getMessage(), RETRY.toSeconds(),
                            attempt, ATTEMPTS);
                } catch (JMException | RuntimeException e) {
                    log.error("registering the metrics beans {} and {} failed: {}", snapshotName, streamingName, e.toString());
                    return;
                }
            }
            try {
                Thread.sleep(RETRY.toMillis());
            } catch (InterruptedException stopped) {
                return;
            }
        }
    }

    /** Unregisters the beans (only those this task registered), and stops a registration still trying. */
    @Override
    public void close() {
        streaming.connected(false);
        snapshot.aborted();
        registration.interrupt();
        synchronized (this) {
            closed = true;
            MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            if (snapshotRegistered) unregister(server, snapshotName);
            if (streamingRegistered) unregister(server, streamingName);
            snapshotRegistered = false;
            streamingRegistered = false;
        }
    }

    private static void unregister(MBeanServer server, ObjectName name) {
        try {
            server.unregisterMBean(name);
        } catch (InstanceNotFoundException gone) {
            log.info("metrics bean {} was already unregistered", name);
        } catch (JMException e) {
            log.warn("unregistering metrics bean {} failed: {}", name, e.toString());
        }
    }
}
