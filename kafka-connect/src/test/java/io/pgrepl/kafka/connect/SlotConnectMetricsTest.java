package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.slot.SlotMonitor;
import io.pgrepl.testkit.PgServer;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import javax.management.ObjectName;
import org.apache.kafka.common.MetricName;
import org.apache.kafka.common.metrics.JmxReporter;
import org.apache.kafka.common.metrics.KafkaMetric;
import org.apache.kafka.common.metrics.KafkaMetricsContext;
import org.apache.kafka.common.metrics.MetricConfig;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.metrics.internals.PluginMetricsImpl;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.Test;

/**
 * The slot's numbers through Kafka's own plugin-metrics implementation and JMX reporter (what a
 * Connect worker hands a task as {@code context.pluginMetrics()}), against a real PostgreSQL 18:
 * equal to what the server itself says, readable as JMX attributes, removed on close.
 */
class SlotConnectMetricsTest {

    @Test
    void slotMetricsAreConnectPluginMetricsWithTheServersNumbers() throws Exception {
        try (PgServer s = PgServer.builder().version(18).setting("max_slot_wal_keep_size", "64MB").start()) {
            s.sql("postgres", "SELECT pg_create_logical_replication_slot('cm_slot', 'pgoutput')");
            s.sql("postgres", "CREATE TABLE cm_t AS SELECT g FROM generate_series(1, 10000) g");
            ConnectionConfig cfg = ConnectionConfig.builder().host(s.host()).port(s.port()).user(s.superuser().name())
                    .password(s.superuser().password()).database("postgres").sslMode(SslMode.DISABLE).build();
            JmxReporter jmx = new JmxReporter();
            Metrics kafka = new Metrics(new MetricConfig(), List.of(jmx), Time.SYSTEM,
                    new KafkaMetricsContext("kafka.connect"));
            AtomicInteger polls = new AtomicInteger();
            try (kafka; PluginMetricsImpl plugin = new PluginMetricsImpl(kafka, Map.of("connector", "cm", "task", "0"));
                 SlotMonitor monitor = SlotMonitor.builder(cfg).slot("cm_slot").interval(Duration.ofMillis(200))
                         .listener(x -> polls.incrementAndGet()).build()) {
                SlotConnectMetrics m = SlotConnectMetrics.register(plugin, monitor, "cm_slot");
                monitor.start();
                String q = "SELECT (pg_current_wal_lsn() - restart_lsn)::bigint, (pg_current_wal_lsn() - confirmed_flush_lsn)::bigint,"
                        + " safe_wal_size, wal_status FROM pg_replication_slots WHERE slot_name = 'cm_slot'";
                List<String> before;
                List<String> after;
                do { // the server's numbers, unchanged across a whole poll
                    before = row(s, q);
                    int p = polls.get();
                    while (polls.get() < p + 2) Thread.sleep(20);
                    after = row(s, q);
                } while (!before.equals(after));

                assertEquals(Long.parseLong(after.get(0)), value(kafka, SlotConnectMetrics.RETAINED_WAL));
                assertTrue(Long.parseLong(after.get(0)) > 100_000, "the table's WAL is retained: " + after);
                assertEquals(Long.parseLong(after.get(1)), value(kafka, SlotConnectMetrics.LAG_BYTES));
                assertEquals(Long.parseLong(after.get(2)), value(kafka, SlotConnectMetrics.SAFE_WAL_SIZE));
                assertEquals(after.get(3), value(kafka, SlotConnectMetrics.WAL_STATUS));
                assertEquals(false, value(kafka, SlotConnectMetrics.ACTIVE));
                assertNull(value(kafka, SlotConnectMetrics.MILLIS_BEHIND_SOURCE), "no walsender, no replay_lag");
                assertEquals(0L, value(kafka, SlotConnectMetrics.SPILL_BYTES));

                // As JMX attributes, where Connect's users read them.
                var mbeans = ManagementFactory.getPlatformMBeanServer()
                        .queryNames(new ObjectName("kafka.connect:type=plugins,*"), null);
                ObjectName name = mbeans.stream().filter(n -> "cm_slot".equals(n.getKeyProperty("slot"))).findFirst()
                        .orElseThrow(() -> new AssertionError("no plugin MBean: " + mbeans));
                assertEquals(Long.parseLong(after.get(0)), ManagementFactory.getPlatformMBeanServer()
                        .getAttribute(name, SlotConnectMetrics.RETAINED_WAL));

                m.close();
                assertTrue(kafka.metrics().keySet().stream().noneMatch(n -> n.name().startsWith("Slot")), "removed on close");
            }
            s.dropReplicationSlot("cm_slot");
        }
    }

    private static Object value(Metrics kafka, String name) {
        for (Map.Entry<MetricName, KafkaMetric> e : kafka.metrics().entrySet()) {
            if (e.getKey().name().equals(name)) return e.getValue().metricValue();
        }
        throw new AssertionError("no metric " + name + ": " + kafka.metrics().keySet());
    }

    private static List<String> row(PgServer s, String q) throws Exception {
        ConnectionConfig cfg = ConnectionConfig.builder().host(s.host()).port(s.port()).user(s.superuser().name())
                .password(s.superuser().password()).database("postgres").sslMode(SslMode.DISABLE).build();
        try (var c = io.pgrepl.client.PgConnection.connect(cfg).toCompletableFuture().get()) {
            var r = c.query(q).toCompletableFuture().get().singleRow();
            return List.of(r.get(0), r.get(1), r.get(2), r.get(3));
        }
    }
}
