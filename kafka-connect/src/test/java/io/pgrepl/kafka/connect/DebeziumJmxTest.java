package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.Row;
import io.pgrepl.testkit.PgServer;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.rmi.server.RMIServerSocketFactory;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.management.MBeanServerConnection;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXConnectorServer;
import javax.management.remote.JMXConnectorServerFactory;
import javax.management.remote.JMXServiceURL;
import javax.management.remote.rmi.RMIConnectorServer;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Debezium's JMX beans of a pgrepl connector in a real Connect worker, read as a monitoring tool
 * reads them: through a JMX connector (RMI on 127.0.0.1) by Debezium's ObjectNames, custom tags
 * included. Figures are checked against what the server says: its row counts, the inserting
 * transaction's xid (xmin), its WAL positions.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DebeziumJmxTest {
    private EmbeddedConnectCluster connect;
    private final Map<Integer, PgServer> servers = new HashMap<>();
    private JMXConnectorServer jmxServer;
    private JMXConnector jmxClient;
    private MBeanServerConnection jmx;

    @BeforeAll
    void start() throws Exception {
        connect = ConnectHarness.start("jmx", 1, Map.of());
        if (System.getProperty("java.rmi.server.hostname") == null) System.setProperty("java.rmi.server.hostname", "127.0.0.1");
        RMIServerSocketFactory loopback = port -> new ServerSocket(port, 0, InetAddress.getLoopbackAddress());
        jmxServer = JMXConnectorServerFactory.newJMXConnectorServer(new JMXServiceURL("service:jmx:rmi://127.0.0.1"),
                Map.of(RMIConnectorServer.RMI_SERVER_SOCKET_FACTORY_ATTRIBUTE, loopback), ManagementFactory.getPlatformMBeanServer());
        jmxServer.start();
        jmxClient = JMXConnectorFactory.connect(jmxServer.getAddress());
        jmx = jmxClient.getMBeanServerConnection();
    }

    @AfterAll
    void stop() throws Exception {
        if (jmxClient != null) jmxClient.close();
        if (jmxServer != null) jmxServer.stop();
        if (connect != null) connect.stop();
        servers.values().forEach(PgServer::close);
    }

    static java.util.stream.Stream<Integer> versions() {
        return ConnectHarness.newestAndOldest();
    }

    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("versions")
    void snapshotAndStreamingBeansCountWhatTheServerHas(int major) throws Exception {
        PgServer pg = servers.computeIfAbsent(major, m -> PgServer.start(PgServer.builder().version(m).build()));
        String p = "jmx" + major;
        EndToEndTest.sql(pg, String.format("""
                CREATE TYPE %1$s_mood AS ENUM ('ok', 'sad');
                CREATE DOMAIN %1$s_pos AS int CHECK (VALUE > 0);
                CREATE TABLE %1$s_items (id int PRIMARY KEY, price numeric(10,2), label varchar(20), at timestamp(3),
                  flags bit(4), tags text[], mood %1$s_mood, qty %1$s_pos);
                INSERT INTO %1$s_items SELECT g, g * 1.25, 'l' || g, '2024-02-29 12:00'::timestamp + g * interval '1.5 s',
                  B'1010', ARRAY['a', NULL, 'c'], CASE WHEN g %% 2 = 0 THEN 'ok' ELSE 'sad' END::%1$s_mood,
                  CASE WHEN g %% 7 = 0 THEN NULL ELSE g END FROM generate_series(1, 300) g;
                CREATE TABLE "%1$s_Mixed Case" (id int PRIMARY KEY, v text);
                INSERT INTO "%1$s_Mixed Case" SELECT g, CASE WHEN g %% 3 = 0 THEN NULL ELSE repeat('x', g) END
                  FROM generate_series(1, 50) g;
                CREATE TABLE %1$s_empty (id int PRIMARY KEY);
                """, p));
        String items = "public." + p + "_items";
        String mixed = "public." + p + "_Mixed Case";
        String empty = "public." + p + "_empty";
        Map<String, Long> rows = new TreeMap<>();
        for (String t : List.of(items, mixed, empty)) {
            String q = "public.\"" + t.substring("public.".length()) + "\"";
            rows.put(t, Long.parseLong(EndToEndTest.query(pg, "SELECT count(*) FROM " + q).get(0).get(0)));
        }
        assertEquals(Map.of(items, 300L, mixed, 50L, empty, 0L), rows);

        Map<String, String> cfg = EndToEndTest.connectorConfig(pg, p);
        cfg.put("snapshot.mode", "initial");
        cfg.put("custom.metric.tags", "env=test,team=cdc");
        cfg.put("advanced.metrics.enable", "true");
        connect.configureConnector(p, cfg);
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(p, 1, "connector did not start");

        ObjectName snapshot = new ObjectName("debezium.postgres:type=connector-metrics,context=snapshot,server=" + p + ",env=test,team=cdc");
        ObjectName streaming = new ObjectName("debezium.postgres:type=connector-metrics,context=streaming,server=" + p + ",env=test,team=cdc");
        await("the snapshot completes", () -> jmx.isRegistered(snapshot) && (Boolean) jmx.getAttribute(snapshot, "SnapshotCompleted"));
        // Named as Debezium names them: the keys in its order, the custom tags last.
        Set<String> names = jmx.queryNames(new ObjectName("debezium.postgres:server=" + p + ",*"), null).stream()
                .map(ObjectName::toString).collect(Collectors.toSet());
        assertEquals(Set.of(snapshot.toString(), streaming.toString()), names);
        assertEquals("type=connector-metrics,context=streaming,server=" + p + ",env=test,team=cdc",
                jmx.queryNames(streaming, null).iterator().next().getKeyPropertyListString());

        assertEquals(false, jmx.getAttribute(snapshot, "SnapshotRunning"));
        assertEquals(false, jmx.getAttribute(snapshot, "SnapshotAborted"));
        assertEquals(false, jmx.getAttribute(snapshot, "SnapshotSkipped"));
        assertEquals(3, jmx.getAttribute(snapshot, "TotalTableCount"));
        assertEquals(0, jmx.getAttribute(snapshot, "RemainingTableCount"));
        assertEquals(rows, map(jmx.getAttribute(snapshot, "RowsScanned")));
        assertEquals(350L, jmx.getAttribute(snapshot, "TotalNumberOfEventsSeen"));
        assertEquals(0L, jmx.getAttribute(snapshot, "TotalNumberOfCreateEventsSeen"), "reads are no creates");
        assertArrayEquals(new String[] {mixed, empty, items}, sorted((String[]) jmx.getAttribute(snapshot, "CapturedTables")));
        assertTrue((Long) jmx.getAttribute(snapshot, "MilliSecondsSinceLastEvent") >= 0);
        assertTrue(((String) jmx.getAttribute(snapshot, "LastEvent")).startsWith("position: {lsn: "),
                () -> "LastEvent " + attr(snapshot, "LastEvent"));

        await("the stream is connected", () -> (Boolean) jmx.getAttribute(streaming, "Connected"));
        assertEquals(0L, jmx.getAttribute(streaming, "TotalNumberOfEventsSeen"), "the snapshot's reads are not the stream's");
        assertEquals(-1L, jmx.getAttribute(streaming, "MilliSecondsBehindSource"));
        EndToEndTest.sql(pg, "INSERT INTO " + p + "_items (id, label) VALUES (1001, 'a'), (1002, 'b'), (1003, NULL)");
        EndToEndTest.sql(pg, "UPDATE " + p + "_items SET label = 'upd' WHERE id <= 2");
        EndToEndTest.sql(pg, "DELETE FROM \"" + p + "_Mixed Case\" WHERE id <= 4");
        long before = lsn(pg);
        EndToEndTest.sql(pg, "INSERT INTO " + p + "_items (id, qty) VALUES (1004, 1); UPDATE " + p + "_items SET qty = 2 WHERE id = 1004");
        long after = lsn(pg);
        String xid = EndToEndTest.query(pg, "SELECT xmin FROM " + p + "_items WHERE id = 1004").get(0).get(0);

        await("the stream's 11 changes are handed over", () -> (Long) jmx.getAttribute(streaming, "TotalNumberOfEventsSeen") >= 11);
        assertEquals(11L, jmx.getAttribute(streaming, "TotalNumberOfEventsSeen"));
        assertEquals(4L, jmx.getAttribute(streaming, "TotalNumberOfCreateEventsSeen"));
        assertEquals(3L, jmx.getAttribute(streaming, "TotalNumberOfUpdateEventsSeen"));
        assertEquals(4L, jmx.getAttribute(streaming, "TotalNumberOfDeleteEventsSeen"));
        assertEquals(4L, jmx.getAttribute(streaming, "NumberOfCommittedTransactions"));
        assertEquals(xid, jmx.getAttribute(streaming, "LastTransactionId"));
        Map<?, ?> position = map(jmx.getAttribute(streaming, "SourceEventPosition"));
        assertEquals(Set.of("lsn"), position.keySet());
        long at = Long.parseLong((String) position.get("lsn"));
        assertTrue(at > before && at <= after, () -> "lsn " + at + " within the last transaction's WAL " + before + ".." + after);
        long lag = (Long) jmx.getAttribute(streaming, "MilliSecondsBehindSource");
        assertTrue(lag >= 0 && lag < 120_000, "MilliSecondsBehindSource " + lag);
        assertEquals(Map.of(items, 4L), map(jmx.getAttribute(streaming, "NumberOfCreateEventsSeen")));
        assertEquals(Map.of(items, 3L), map(jmx.getAttribute(streaming, "NumberOfUpdateEventsSeen")));
        assertEquals(Map.of(mixed, 4L), map(jmx.getAttribute(streaming, "NumberOfDeleteEventsSeen")));
        assertEquals(-1L, jmx.getAttribute(streaming, "NumberOfUnchangedEventsSkipped"));
        double p99 = (Double) jmx.getAttribute(streaming, "MilliSecondsBehindSourceP99");
        assertTrue(p99 >= (Long) jmx.getAttribute(streaming, "MilliSecondsBehindSourceMinValue")
                && p99 <= (Long) jmx.getAttribute(streaming, "MilliSecondsBehindSourceMaxValue"), "P99 " + p99);
        int capacity = (Integer) jmx.getAttribute(streaming, "QueueTotalCapacity");
        assertTrue(capacity > 0, "QueueTotalCapacity " + capacity);
        await("the queue is drained", () -> capacity == (Integer) jmx.getAttribute(streaming, "QueueRemainingCapacity"));

        // A stopped task unregisters; the next one registers again and, starting from the stored
        // offsets, skips the snapshot (SnapshotCompleted stays false, as in Debezium).
        connect.deleteConnector(p);
        await("the beans are unregistered", () -> !jmx.isRegistered(snapshot) && !jmx.isRegistered(streaming));
        // Outside table.include.list (the connector adds it to the publication): its rows are no change events.
        EndToEndTest.sql(pg, "CREATE TABLE " + p + "signal (id varchar(42) PRIMARY KEY, type varchar(32) NOT NULL, data varchar(2048))");
        cfg.put("signal.data.collection", "public." + p + "signal");
        cfg.put("incremental.snapshot.chunk.size", "50");
        connect.configureConnector(p, cfg);
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(p, 1, "connector did not start again");
        await("the beans are registered again", () -> jmx.isRegistered(snapshot) && jmx.isRegistered(streaming)
                && (Boolean) jmx.getAttribute(streaming, "Connected"));
        assertEquals(true, jmx.getAttribute(snapshot, "SnapshotSkipped"));
        assertEquals(false, jmx.getAttribute(snapshot, "SnapshotCompleted"));
        assertEquals(0L, jmx.getAttribute(snapshot, "TotalNumberOfEventsSeen"));
        EndToEndTest.sql(pg, "INSERT INTO " + p + "_empty VALUES (1)");
        await("the new task counts its change", () -> (Long) jmx.getAttribute(streaming, "TotalNumberOfEventsSeen") == 1L);
        assertEquals(Map.of(empty, 1L), map(jmx.getAttribute(streaming, "NumberOfCreateEventsSeen")));

        // An incremental snapshot: reported on the snapshot bean as Debezium reports one, its reads
        // counted by the streaming bean.
        long itemRows = Long.parseLong(EndToEndTest.query(pg, "SELECT count(*) FROM " + p + "_items").get(0).get(0));
        EndToEndTest.sql(pg, "INSERT INTO " + p + "signal VALUES ('jmx-1', 'execute-snapshot',"
                + " '{\"data-collections\": [\"public." + p + "_items\"], \"type\": \"incremental\"}')");
        await("the incremental snapshot completes", () -> (Boolean) jmx.getAttribute(snapshot, "SnapshotCompleted"));
        assertEquals(false, jmx.getAttribute(snapshot, "SnapshotSkipped"), "started since");
        assertEquals(false, jmx.getAttribute(snapshot, "SnapshotRunning"));
        assertEquals(Map.of(items, itemRows), map(jmx.getAttribute(snapshot, "RowsScanned")));
        assertEquals(0, jmx.getAttribute(snapshot, "RemainingTableCount"));
        await("the reads are handed over", () -> (Long) jmx.getAttribute(streaming, "TotalNumberOfEventsSeen") >= 1 + itemRows);
        assertEquals(1 + itemRows, jmx.getAttribute(streaming, "TotalNumberOfEventsSeen"),
                () -> "creates " + attr(streaming, "NumberOfCreateEventsSeen") + ", last " + attr(streaming, "LastEvent"));
        assertEquals(1L, jmx.getAttribute(streaming, "TotalNumberOfCreateEventsSeen"), "reads are no creates");
        connect.deleteConnector(p);
        await("the beans are unregistered", () -> !jmx.isRegistered(snapshot) && !jmx.isRegistered(streaming));
    }

    private Object attr(ObjectName n, String a) {
        try {
            return jmx.getAttribute(n, a);
        } catch (Exception e) {
            return e;
        }
    }

    private static long lsn(PgServer pg) throws Exception {
        List<Row> r = EndToEndTest.query(pg, "SELECT (pg_current_wal_insert_lsn() - '0/0')::bigint");
        return Long.parseLong(r.get(0).get(0));
    }

    private static String[] sorted(String[] a) {
        String[] c = a.clone();
        java.util.Arrays.sort(c);
        return c;
    }

    /** An MXBean map attribute (TabularData of key and value) as a map. */
    private static Map<Object, Object> map(Object tabular) {
        Map<Object, Object> out = new TreeMap<>();
        for (Object row : ((TabularData) tabular).values()) {
            CompositeData c = (CompositeData) row;
            out.put(c.get("key"), c.get("value"));
        }
        return out;
    }

    private static void await(String what, Callable<Boolean> condition) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        Exception last = null;
        while (System.nanoTime() < end) {
            try {
                if (condition.call()) return;
                last = null;
            } catch (javax.management.InstanceNotFoundException e) {
                last = e; // not registered yet
            }
            Thread.sleep(100);
        }
        throw new AssertionError("timed out waiting until " + what, last);
    }
}
