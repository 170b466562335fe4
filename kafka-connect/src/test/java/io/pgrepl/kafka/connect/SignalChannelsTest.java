package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pgrepl.client.Row;
import io.pgrepl.kafka.connect.ConnectHarness.Change;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.Waits;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.rmi.server.RMIServerSocketFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.management.MBeanServerConnection;
import javax.management.Notification;
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
 * Debezium's jmx and file signal channels and jmx and log notification channels on a pgrepl
 * connector in a real Connect worker. The jmx ones
 * driven as an operator drives them: through a JMX connector (RMI on 127.0.0.1). A signal naming a
 * table the connector does not capture is answered UNKNOWN_SCHEMA without a scan of it (the
 * server's statistics); a signal naming a table with a quoted name, numeric(10,2), varchar(12),
 * text[] and NULLs snapshots it, every row reaching the topic as the server holds it; a listener
 * on the notification bean receives each step with Debezium's type, message and text, the bean's
 * Notifications attribute holds them with Debezium's fields, and reset empties it. An initial
 * snapshot's copy is announced there too (STARTED, COMPLETED), and in the log. A line of the
 * signal file snapshots a table, the file emptied, a malformed line beside it skipped.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SignalChannelsTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String[] SIGNATURE = {String.class.getName(), String.class.getName(), String.class.getName()};
    private EmbeddedConnectCluster connect;
    private final Map<Integer, PgServer> servers = new HashMap<>();
    private JMXConnectorServer jmxServer;
    private JMXConnector jmxClient;
    private MBeanServerConnection jmx;

    @BeforeAll
    void start() throws Exception {
        connect = ConnectHarness.start("jmxsig", 1, Map.of());
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
    void aJmxSignalSnapshotsWhatIsCapturedAndTheJmxChannelSaysSo(int major) throws Exception {
        PgServer pg = servers.computeIfAbsent(major, m -> PgServer.start(PgServer.builder().version(m).build()));
        String p = "js" + major;
        String hr = p + "_hr";
        String items = p + "_Line Items";
        EndToEndTest.sql(pg, String.format("""
                CREATE SCHEMA %1$s;
                CREATE TABLE %1$s.secrets (id int PRIMARY KEY, salary numeric(10,2));
                INSERT INTO %1$s.secrets SELECT g, g * 1000.5 FROM generate_series(1, 40) g;
                CREATE TABLE "%2$s" (id int PRIMARY KEY, price numeric(10,2), label varchar(12), tags text[], qty int);
                INSERT INTO "%2$s" SELECT g, g * 1.25 - 0.01, CASE WHEN g %% 5 = 0 THEN NULL ELSE 'l' || g END,
                  CASE WHEN g %% 4 = 0 THEN NULL ELSE ARRAY['a', NULL, 'c' || g] END,
                  CASE WHEN g %% 7 = 0 THEN NULL ELSE g END FROM generate_series(1, 120) g;
                CREATE TABLE %3$ssignal (id varchar(42) PRIMARY KEY, type varchar(32) NOT NULL, data varchar(2048));
                """, hr, items, p));
        long scansBefore = stableScans(pg, hr);

        Map<String, String> c = EndToEndTest.connectorConfig(pg, p);
        c.put("snapshot.mode", "no_data");
        c.put("decimal.handling.mode", "string");
        c.put("custom.metric.tags", "env=test");
        c.put("incremental.snapshot.chunk.size", "50");
        c.put("notification.enabled.channels", "jmx");
        if (major >= 14) {
            c.put("signal.enabled.channels", "jmx");
        } else {
            // Before 14 an incremental snapshot's watermarks are rows of the signal table, which the source channel names.
            c.put("signal.enabled.channels", "source,jmx");
            c.put("signal.data.collection", "public." + p + "signal");
        }
        connect.configureConnector(p, c);
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(p, 1, "connector did not start");
        EndToEndTest.awaitSlotActive(pg, p + "_slot");
        ObjectName signals = new ObjectName("debezium.postgres:type=management,context=signals,server=" + p + ",env=test");
        ObjectName notifications = new ObjectName("debezium.postgres:type=management,context=notifications,server=" + p + ",env=test");
        await("the management beans are registered", () -> jmx.isRegistered(signals) && jmx.isRegistered(notifications));
        List<Notification> heard = new CopyOnWriteArrayList<>();
        jmx.addNotificationListener(notifications, (n, handback) -> heard.add(n), null, null);

        // A malformed signal: the caller is told why.
        Exception bad = assertThrows(Exception.class, () -> jmx.invoke(signals, "signal", new Object[] {"x1", "no-such-signal", "{}"}, SIGNATURE));
        assertTrue(chain(bad).contains("unknown signal type \"no-such-signal\""), chain(bad));

        // A table the connector does not capture (table.include.list leaves the schema out).
        jmx.invoke(signals, "signal", new Object[] {"s1", "execute-snapshot",
                "{\"data-collections\": [\"" + hr + ".secrets\"], \"type\": \"incremental\"}"}, SIGNATURE);
        await("the excluded table is answered", () -> find(heard, "TABLE_SCAN_COMPLETED", hr + ".secrets") != null);
        // The captured table, named as PostgreSQL quotes it.
        String quoted = "public.\\\"" + items + "\\\"";
        jmx.invoke(signals, "signal", new Object[] {"s2", "execute-snapshot", "{\"data-collections\": [\"" + quoted + "\"]}"}, SIGNATURE);
        String topicPattern = "\\Q" + p + ".public.\\E.*";
        List<Change> all = ConnectHarness.readUntil(connect, topicPattern, Map.of(), l -> reads(l).size() == 120, Duration.ofSeconds(90));

        // Every row as the server has it.
        Map<Integer, String> want = new TreeMap<>();
        for (Row r : EndToEndTest.query(pg, "SELECT id, price::text, label, array_to_json(tags)::text, qty FROM \"" + items + "\"")) {
            want.put(Integer.parseInt(r.get(0)), r.get(1) + "|" + r.get(2) + "|" + (r.get(3) == null ? null : JSON.readTree(r.get(3)))
                    + "|" + r.get(4));
        }
        Map<Integer, String> got = new TreeMap<>();
        for (JsonNode a : reads(all).values()) {
            got.put(a.get("id").asInt(), a.get("price").asText() + "|" + text(a.get("label")) + "|"
                    + (a.get("tags").isNull() ? null : a.get("tags")) + "|" + text(a.get("qty")));
        }
        assertEquals(want, got);
        assertTrue(want.get(20).contains("|null|null|"), "NULLs present: " + want.get(20));

        await("the snapshot's end is heard", () -> heard.stream().filter(n -> text(n).contains("type='COMPLETED'")).count() == 2);
        // The excluded table: Debezium's answer, nothing read.
        CompositeData excluded = find(kept(notifications), "TABLE_SCAN_COMPLETED", hr + ".secrets");
        Map<String, String> ed = data(excluded);
        assertEquals("UNKNOWN_SCHEMA", ed.get("status"), ed.toString());
        assertEquals("0", ed.get("total_rows_scanned"));
        assertEquals(p, ed.get("connector_name"));
        assertEquals(scansBefore, stableScans(pg, hr), "the excluded table was scanned");
        // The captured one: each step, in Debezium's order and fields.
        List<String> types = new ArrayList<>();
        for (CompositeData n : kept(notifications)) {
            assertEquals("Incremental Snapshot", n.get("aggregateType"));
            assertTrue((Long) n.get("timestamp") > 0);
            assertEquals(p, data(n).get("connector_name"));
            types.add((String) n.get("type"));
        }
        // The excluded table's snapshot (no IN_PROGRESS: nothing read), then the captured table's, 120 rows in chunks of 50.
        assertEquals(List.of("STARTED", "TABLE_SCAN_COMPLETED", "COMPLETED",
                "STARTED", "IN_PROGRESS", "IN_PROGRESS", "IN_PROGRESS", "TABLE_SCAN_COMPLETED", "COMPLETED"), types);
        CompositeData done = find(kept(notifications), "TABLE_SCAN_COMPLETED", "Line Items");
        assertEquals("120", data(done).get("total_rows_scanned"));
        assertEquals("SUCCEEDED", data(done).get("status"));
        // The listener heard the same notifications, each as Debezium emits one.
        assertEquals(kept(notifications).length, heard.size());
        for (int i = 0; i < heard.size(); i++) {
            Notification n = heard.get(i);
            CompositeData k = kept(notifications)[i];
            assertEquals("debezium.notification", n.getType());
            assertEquals("Incremental Snapshot generated a notification", n.getMessage());
            assertTrue(text(n).startsWith("{id='" + k.get("id") + "', aggregateType='Incremental Snapshot', type='" + k.get("type") + "', additionalData={"),
                    text(n));
            assertTrue(text(n).endsWith("}, timestamp=" + k.get("timestamp") + "}"), text(n));
        }
        jmx.invoke(notifications, "reset", new Object[0], new String[0]);
        assertEquals(0, kept(notifications).length);

        connect.deleteConnector(p);
        await("the management beans are unregistered", () -> !jmx.isRegistered(signals) && !jmx.isRegistered(notifications));
    }

    /** The copy's start and end on the jmx and log channels, as Debezium sends an initial snapshot's. */
    @org.junit.jupiter.api.Test
    void theInitialSnapshotStartsAndCompletesOnTheJmxChannel() throws Exception {
        PgServer pg = servers.computeIfAbsent(18, m -> PgServer.start(PgServer.builder().version(m).build()));
        String p = "jsinit";
        EndToEndTest.sql(pg, "CREATE TABLE " + p + "_t (id int PRIMARY KEY, amount numeric(8,3), note varchar(10));"
                + "INSERT INTO " + p + "_t SELECT g, g / 7.0, CASE WHEN g % 3 = 0 THEN NULL ELSE 'n' || g END FROM generate_series(1, 30) g");
        Map<String, String> c = EndToEndTest.connectorConfig(pg, p);
        c.put("snapshot.mode", "initial");
        c.put("notification.enabled.channels", "jmx,log");
        // The worker's log (slf4j-simple writes to System.err, looked up on every line), kept too.
        java.io.PrintStream err = System.err;
        java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(new java.io.OutputStream() {
            @Override
            public void write(int b) {
                err.write(b);
                synchronized (log) {
                    log.write(b);
                }
            }
        }, true));
        ObjectName notifications = new ObjectName("debezium.postgres:type=management,context=notifications,server=" + p);
        try {
            connect.configureConnector(p, c);
            connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(p, 1, "connector did not start");
            await("the copy's end is kept", () -> jmx.isRegistered(notifications) && kept(notifications).length == 2);
        } finally {
            System.setErr(err);
        }
        List<String> got = new ArrayList<>();
        String logged;
        synchronized (log) {
            logged = log.toString(java.nio.charset.StandardCharsets.UTF_8);
        }
        for (CompositeData n : kept(notifications)) {
            got.add(n.get("aggregateType") + " " + n.get("type") + " " + data(n));
            // The log channel: Debezium's line for the same notification.
            String line = "[Notification Service] {id='" + n.get("id") + "', aggregateType='Initial Snapshot', type='" + n.get("type")
                    + "', additionalData={connector_name=" + p + "}, timestamp=" + n.get("timestamp") + "}";
            assertTrue(logged.contains(line), "not logged: " + line);
        }
        assertEquals(List.of("Initial Snapshot STARTED {connector_name=" + p + "}", "Initial Snapshot COMPLETED {connector_name=" + p + "}"), got);
        List<Change> all = ConnectHarness.readUntil(connect, "\\Q" + p + ".public." + p + "_t\\E", Map.of(), l -> l.size() == 30, Duration.ofSeconds(90));
        assertEquals(30, all.size());
        connect.deleteConnector(p);
        await("the bean is unregistered", () -> !jmx.isRegistered(notifications));
    }

    @org.junit.jupiter.api.Test
    void aLineOfTheSignalFileSnapshotsTheTable(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        PgServer pg = servers.computeIfAbsent(18, m -> PgServer.start(PgServer.builder().version(m).build()));
        String p = "jsfile";
        EndToEndTest.sql(pg, "CREATE TABLE " + p + "_t (id int PRIMARY KEY, amount numeric(6,2), code varchar(8), nums int[]);"
                + "INSERT INTO " + p + "_t SELECT g, g * 3.5, CASE WHEN g % 4 = 0 THEN NULL ELSE 'c' || g END,"
                + " CASE WHEN g % 3 = 0 THEN NULL ELSE ARRAY[g, NULL, -g] END FROM generate_series(1, 25) g");
        java.nio.file.Path file = dir.resolve("signals.txt");
        Map<String, String> c = EndToEndTest.connectorConfig(pg, p);
        c.put("snapshot.mode", "no_data");
        c.put("decimal.handling.mode", "string");
        c.put("signal.enabled.channels", "file");
        c.put("signal.file", file.toString());
        c.put("signal.poll.interval.ms", "200");
        connect.configureConnector(p, c);
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(p, 1, "connector did not start");
        EndToEndTest.awaitSlotActive(pg, p + "_slot");
        java.nio.file.Files.writeString(file, "{\"id\": \"f0\", \"type\": \"no-such-signal\", \"data\": {}}\n\n"
                + "{\"id\": \"f1\", \"type\": \"execute-snapshot\", \"data\": {\"data-collections\": [\"public." + p + "_t\"]}}\n");
        String topic = p + ".public." + p + "_t";
        ConnectHarness.readUntil(connect, "\\Q" + topic + "\\E", Map.of(), l -> l.size() >= 25, Duration.ofSeconds(90), 0);
        // Emptied when read, before the snapshot it asked for started.
        assertEquals("", java.nio.file.Files.readString(file), "the file is emptied once read");
        List<Change> all = ConnectHarness.readUntil(connect, "\\Q" + topic + "\\E", Map.of(), l -> l.size() >= 25, Duration.ofSeconds(90));
        Map<Integer, String> want = new TreeMap<>();
        for (Row r : EndToEndTest.query(pg, "SELECT id, amount::text, code, array_to_json(nums)::text FROM " + p + "_t")) {
            want.put(Integer.parseInt(r.get(0)), r.get(1) + "|" + r.get(2) + "|" + (r.get(3) == null ? null : JSON.readTree(r.get(3))));
        }
        Map<Integer, String> got = new TreeMap<>();
        for (Change ch : all) {
            JsonNode pl = IncrementalChecks.payload(ch);
            assertEquals("r", pl.get("op").asText());
            JsonNode a = pl.get("after");
            got.put(a.get("id").asInt(), a.get("amount").asText() + "|" + text(a.get("code")) + "|" + (a.get("nums").isNull() ? null : a.get("nums")));
        }
        assertEquals(25, all.size(), "each row read once");
        assertEquals(want, got);
        connect.deleteConnector(p);
    }

    /** The reads of the quoted table's topic, by id. */
    private static Map<Integer, JsonNode> reads(List<Change> all) {
        Map<Integer, JsonNode> out = new TreeMap<>();
        for (Change ch : all) {
            if (!ch.topic().contains("Line") || ch.rawValue() == null) continue;
            JsonNode pl = IncrementalChecks.payload(ch);
            if (pl.get("op").asText().equals("r")) out.put(pl.get("after").get("id").asInt(), pl.get("after"));
        }
        return out;
    }

    private static String text(JsonNode v) {
        return v == null || v.isNull() ? null : v.asText();
    }

    private static String text(Notification n) {
        return String.valueOf(n.getUserData());
    }

    private CompositeData[] kept(ObjectName notifications) throws Exception {
        return (CompositeData[]) jmx.getAttribute(notifications, "Notifications");
    }

    private static Map<String, String> data(CompositeData n) {
        Map<String, String> out = new TreeMap<>();
        for (Object row : ((TabularData) n.get("additionalData")).values()) {
            CompositeData r = (CompositeData) row;
            out.put((String) r.get("key"), (String) r.get("value"));
        }
        return out;
    }

    private static CompositeData find(CompositeData[] kept, String type, String scanned) {
        for (CompositeData n : kept) {
            if (type.equals(n.get("type")) && String.valueOf(data(n).get("scanned_collection")).contains(scanned)) return n;
        }
        return null;
    }

    private Notification find(List<Notification> heard, String type, String scanned) {
        for (Notification n : heard) {
            if (text(n).contains("type='" + type + "'") && text(n).contains("scanned_collection=" + scanned)) return n;
        }
        return null;
    }

    /** Scans of the excluded table once the statistics stop moving (before 15 the collector reports late). */
    private static long stableScans(PgServer pg, String schema) throws Exception {
        long before = -1;
        for (int i = 0; i < 60; i++) {
            long now = Long.parseLong(EndToEndTest.query(pg, "SELECT seq_scan + coalesce(idx_scan, 0) FROM pg_stat_user_tables"
                    + " WHERE schemaname = '" + schema + "' AND relname = 'secrets'").get(0).get(0));
            if (now == before) return now;
            before = now;
            Thread.sleep(1000);
        }
        return before;
    }

    private static String chain(Throwable t) {
        StringBuilder b = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) b.append(c).append(" / ");
        return b.toString();
    }

    private static void await(String what, Callable<Boolean> condition) throws Exception {
        long end = System.nanoTime() + Waits.CEILING.toNanos();
        while (!condition.call()) {
            if (System.nanoTime() > end) throw new AssertionError(what + ": not within " + Waits.CEILING);
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }
}
