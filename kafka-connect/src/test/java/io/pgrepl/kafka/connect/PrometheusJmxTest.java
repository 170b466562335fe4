package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.testkit.PgServer;
import io.prometheus.jmx.JmxCollector;
import io.prometheus.metrics.model.snapshots.DataPointSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Label;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.UnknownSnapshot;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.Test;

/**
 * Debezium's PostgreSQL connector and pgrepl's in one worker, on the same table, scraped by the
 * Prometheus JMX exporter's own collector with the rules Debezium ships for it
 * (debezium-jmx-exporter.yml): every metric and label that Debezium's beans turn into, pgrepl's turn
 * into too, and the counts of the same rows and transactions agree. One server major (18): the
 * names do not depend on it, and DebeziumJmxTest reads the figures on 18 and 10.
 */
class PrometheusJmxTest {

    @Test
    void scrapedMetricsAreDebeziums() throws Exception {
        EmbeddedConnectCluster connect = ConnectHarness.start("prom", 1, Map.of());
        try (PgServer pg = PgServer.start(PgServer.builder().version(18).build())) {
            EndToEndTest.sql(pg, """
                    CREATE TABLE prom_t (id int PRIMARY KEY, amount numeric(12,2), label varchar(30), at timestamp(3), tags text[]);
                    INSERT INTO prom_t SELECT g, g * 0.5, CASE WHEN g % 4 = 0 THEN NULL ELSE 'l' || g END,
                      '2024-02-29 12:00'::timestamp + g * interval '1 min', ARRAY['x' || g] FROM generate_series(1, 40) g;
                    CREATE PUBLICATION prom_pub FOR TABLE prom_t;
                    """);
            Map<String, String> d = DebeziumParityTest.debezium(pg, "dbzprom", "prom_pub");
            d.put("table.include.list", "public\\.prom_t");
            Map<String, String> p = DebeziumParityTest.pgrepl(pg, "pgrprom", "prom_pub");
            p.put("table.include.list", "public\\.prom_t");
            connect.configureConnector("dbzprom", d);
            connect.configureConnector("pgrprom", p);
            MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
            for (String server : new String[] {"dbzprom", "pgrprom"}) {
                ObjectName snapshot = new ObjectName("debezium.postgres:type=connector-metrics,context=snapshot,server=" + server);
                ObjectName streaming = new ObjectName("debezium.postgres:type=connector-metrics,context=streaming,server=" + server);
                await(server + "'s snapshot completes and its stream connects", () -> jmx.isRegistered(snapshot)
                        && (Boolean) jmx.getAttribute(snapshot, "SnapshotCompleted") && jmx.isRegistered(streaming)
                        && (Boolean) jmx.getAttribute(streaming, "Connected"));
            }
            EndToEndTest.sql(pg, "INSERT INTO prom_t (id, label) VALUES (100, 'new')");
            EndToEndTest.sql(pg, "UPDATE prom_t SET amount = 1.25 WHERE id <= 3");
            EndToEndTest.sql(pg, "DELETE FROM prom_t WHERE id = 40");
            for (String server : new String[] {"dbzprom", "pgrprom"}) {
                ObjectName streaming = new ObjectName("debezium.postgres:type=connector-metrics,context=streaming,server=" + server);
                await(server + " streams the 5 changes", () -> (Long) jmx.getAttribute(streaming, "TotalNumberOfEventsSeen") >= 5);
            }

            String rules = new String(PrometheusJmxTest.class.getResourceAsStream("/debezium-jmx-exporter.yml").readAllBytes(),
                    StandardCharsets.UTF_8);
            JmxCollector collector = new JmxCollector(rules);
            collector.register(new io.prometheus.metrics.model.registry.PrometheusRegistry()); // its own scrape gauges
            Map<String, Map<String, Double>> scraped = scrape(collector);
            Map<String, Double> debezium = scraped.get("dbzprom");
            Map<String, Double> pgrepl = scraped.get("pgrprom");
            assertTrue(debezium != null && debezium.size() > 40, "Debezium's metrics: " + scraped.keySet());
            // Every series Debezium's beans give, pgrepl's give, with the same labels; and no other.
            assertEquals(debezium.keySet(), pgrepl.keySet());
            for (String same : new String[] {
                    "debezium_metrics_TotalNumberOfEventsSeen{context=snapshot}",
                    "debezium_metrics_RowsScanned{context=snapshot,table=public.prom_t}",
                    "debezium_metrics_SnapshotCompleted{context=snapshot}",
                    "debezium_metrics_TotalTableCount{context=snapshot}",
                    "debezium_metrics_RemainingTableCount{context=snapshot}",
                    "debezium_metrics_TotalNumberOfEventsSeen{context=streaming}",
                    "debezium_metrics_TotalNumberOfCreateEventsSeen{context=streaming}",
                    "debezium_metrics_TotalNumberOfUpdateEventsSeen{context=streaming}",
                    "debezium_metrics_TotalNumberOfDeleteEventsSeen{context=streaming}",
                    "debezium_metrics_NumberOfCommittedTransactions{context=streaming}",
                    "debezium_metrics_Connected{context=streaming}",
                    "debezium_metrics_NumberOfUnchangedEventsSkipped{context=streaming}"}) {
                assertEquals(debezium.get(same), pgrepl.get(same), same);
            }
            assertEquals(40.0, pgrepl.get("debezium_metrics_RowsScanned{context=snapshot,table=public.prom_t}"));
            assertEquals(5.0, pgrepl.get("debezium_metrics_TotalNumberOfEventsSeen{context=streaming}"));
            assertEquals(3.0, pgrepl.get("debezium_metrics_NumberOfCommittedTransactions{context=streaming}"));
            connect.deleteConnector("dbzprom");
            connect.deleteConnector("pgrprom");
        } finally {
            connect.stop();
        }
    }

    /** Per {@code name} label (the connector's server): each series as {@code metric{other labels}}, with its value. */
    private static Map<String, Map<String, Double>> scrape(JmxCollector collector) {
        Map<String, Map<String, Double>> out = new TreeMap<>();
        for (MetricSnapshot s : collector.collect()) {
            String metric = s.getMetadata().getPrometheusName();
            for (DataPointSnapshot p : s.getDataPoints()) {
                String server = null;
                Set<String> labels = new TreeSet<>();
                for (Label l : p.getLabels()) {
                    if (l.getName().equals("name")) server = l.getValue();
                    else if (!l.getName().equals("plugin")) labels.add(l.getName() + "=" + l.getValue());
                    else assertEquals("postgres", l.getValue());
                }
                if (server == null) continue;
                double value = p instanceof GaugeSnapshot.GaugeDataPointSnapshot g ? g.getValue()
                        : p instanceof UnknownSnapshot.UnknownDataPointSnapshot u ? u.getValue() : Double.NaN;
                out.computeIfAbsent(server, k -> new TreeMap<>()).put(metric + "{" + String.join(",", labels) + "}", value);
            }
        }
        return out;
    }

    private static void await(String what, Callable<Boolean> condition) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < end) {
            try {
                if (condition.call()) return;
            } catch (javax.management.InstanceNotFoundException notYet) {
                // registered a moment later
            }
            Thread.sleep(100);
        }
        throw new AssertionError("timed out waiting until " + what);
    }
}
