package io.pgrepl.kafka.connect;

import io.pgrepl.client.slot.SlotHealth;
import io.pgrepl.client.slot.SlotHealthListener;
import io.pgrepl.client.slot.SlotMonitor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.Gauge;
import org.apache.kafka.common.metrics.PluginMetrics;

/**
 * The slot monitor's numbers as Connect metrics (KIP-877 plugin metrics: JMX
 * {@code kafka.connect:type=plugins,connector=...,task=...}, tag {@code slot}), for a task to
 * register with {@code context.pluginMetrics()}. Values are those of the last successful poll;
 * null when unknown (before the first poll, or the server's major lacks the column).
 *
 * <p>Names are CamelCase like Debezium's JMX attributes. {@value #MILLIS_BEHIND_SOURCE} has
 * Debezium's name because it means the same thing: how far the consumer is behind the source, in
 * milliseconds (here the walsender's {@code replay_lag}). Debezium has no slot-level WAL metric;
 * the rest are named after the PostgreSQL columns.
 */
public final class SlotConnectMetrics implements SlotHealthListener, AutoCloseable {
    /** Milliseconds behind the source: replay_lag of the slot's walsender (Debezium's name). */
    public static final String MILLIS_BEHIND_SOURCE = "MilliSecondsBehindSource";
    /** Bytes of WAL the slot retains: current LSN - restart_lsn. */
    public static final String RETAINED_WAL = "SlotRetainedWalBytes";
    /** safe_wal_size in bytes (13+; null when max_slot_wal_keep_size is -1). */
    public static final String SAFE_WAL_SIZE = "SlotSafeWalSizeBytes";
    /** wal_status (13+): reserved, extended, unreserved, lost. */
    public static final String WAL_STATUS = "SlotWalStatus";
    /** Decoding lag in bytes: current LSN - confirmed_flush_lsn. */
    public static final String LAG_BYTES = "SlotLagBytes";
    /** Bytes spilled to disk while decoding (14+, cumulative since the statistics' reset). */
    public static final String SPILL_BYTES = "SlotSpillBytes";
    /** Whether a walsender streams from the slot. */
    public static final String ACTIVE = "SlotActive";

    private final PluginMetrics metrics;
    private final SlotMonitor monitor;
    private final String slot;
    private final List<MetricName> names = new ArrayList<>();
    private volatile SlotHealth latest;
    /** Started by {@link #start}: closed with the registration. */
    private boolean ownsMonitor;

    private SlotConnectMetrics(PluginMetrics metrics, SlotMonitor monitor, String slot) {
        this.metrics = metrics;
        this.monitor = monitor;
        this.slot = slot;
    }

    /**
     * Registers the metrics of {@code slot} and listens to {@code monitor}'s polls.
     *
     * @param metrics the task's {@code context.pluginMetrics()}
     * @param monitor a monitor polling the slot
     * @param slot    the task's slot
     * @return the registration; {@link #close()} removes the metrics
     */
    public static SlotConnectMetrics register(PluginMetrics metrics, SlotMonitor monitor, String slot) {
        SlotConnectMetrics m = new SlotConnectMetrics(Objects.requireNonNull(metrics, "metrics"),
                Objects.requireNonNull(monitor, "monitor"), Objects.requireNonNull(slot, "slot"));
        m.latest = monitor.latest(slot);
        m.add(MILLIS_BEHIND_SOURCE, "replay_lag of the slot's walsender, in ms",
                h -> h.lagSeconds() == null ? null : Math.round(h.lagSeconds() * 1000));
        m.add(RETAINED_WAL, "bytes of WAL retained for the slot", SlotHealth::retainedWal);
        m.add(SAFE_WAL_SIZE, "safe_wal_size: WAL that may still be written before the slot is at risk", SlotHealth::safeWalSize);
        m.add(WAL_STATUS, "wal_status of the slot", SlotHealth::walStatus);
        m.add(LAG_BYTES, "current LSN - confirmed_flush_lsn", SlotHealth::lagBytes);
        m.add(SPILL_BYTES, "bytes spilled to disk while decoding", h -> h.spill() == null ? null : h.spill().spillBytes());
        m.add(ACTIVE, "a walsender streams from the slot", SlotHealth::active);
        monitor.addListener(m);
        return m;
    }

    /**
     * What a task runs: a monitor of the task's slot over an ordinary connection of its own, every
     * slot.metrics.interval.ms, published through {@code context.pluginMetrics()}; null when the
     * interval is 0 or the context has no metrics (a task driven outside a worker).
     *
     * @param context the task's context
     * @param config  the connector's settings
     * @return the running registration (closing it stops the monitor), or null
     */
    static SlotConnectMetrics start(org.apache.kafka.connect.source.SourceTaskContext context, PgreplConnectorConfig config) {
        PluginMetrics pm = context.pluginMetrics();
        if (config.slotMetricsIntervalMs() == 0 || pm == null) return null;
        SlotMonitor monitor = SlotMonitor.builder(config.connectionConfig().toBuilder()
                        .replication(io.pgrepl.client.ReplicationMode.NONE).build())
                .slot(config.slotName()).interval(java.time.Duration.ofMillis(config.slotMetricsIntervalMs())).build();
        SlotConnectMetrics m = register(pm, monitor, config.slotName());
        m.ownsMonitor = true;
        monitor.start();
        return m;
    }

    private void add(String name, String description, Function<SlotHealth, Object> f) {
        LinkedHashMap<String, String> tags = new LinkedHashMap<>();
        tags.put("slot", slot);
        MetricName n = metrics.metricName(name, description, tags);
        metrics.addMetric(n, (Gauge<Object>) (config, now) -> {
            SlotHealth h = latest;
            return h == null ? null : f.apply(h);
        });
        names.add(n);
    }

    @Override
    public void onHealth(List<SlotHealth> slots) {
        for (SlotHealth h : slots) {
            if (h.slotName().equals(slot)) latest = h;
        }
    }

    /** Stops listening and removes the metrics. */
    @Override
    public void close() {
        monitor.removeListener(this);
        names.forEach(metrics::removeMetric);
        if (ownsMonitor) monitor.close();
        names.clear();
    }
}
