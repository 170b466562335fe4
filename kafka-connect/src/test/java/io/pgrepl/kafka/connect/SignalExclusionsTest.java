package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pgrepl.kafka.connect.ConnectHarness.Change;
import io.pgrepl.testkit.PgServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A signal naming a table the configuration leaves out reads nothing and tells nothing of it, on
 * both channels (the signal table and the kafka topic): with schema.exclude.list and
 * table.exclude.list, and every table in the publication, an execute-snapshot naming an excluded
 * table that holds rows (245, keys up to 292) is answered as Debezium answers a table it does not
 * capture (TABLE_SCAN_COMPLETED, status UNKNOWN_SCHEMA, no row count), exactly as for an excluded
 * name no table has, and the server's statistics show no scan of it; a captured table named in
 * the same signal is read.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SignalExclusionsTest {
    private EmbeddedConnectCluster connect;
    private final Map<Integer, PgServer> servers = new HashMap<>();

    @BeforeAll
    void start() {
        connect = ConnectHarness.start("excl", 1, Map.of());
    }

    @AfterAll
    void stop() {
        if (connect != null) connect.stop();
        servers.values().forEach(PgServer::close);
    }

    static java.util.stream.Stream<Integer> majors() {
        return ConnectHarness.newestAndOldest();
    }

    /** Sequential scans plus index scans of a table, as the statistics hold them now. */
    private static long scans(PgServer pg, String schema, String table) throws Exception {
        return Long.parseLong(EndToEndTest.query(pg, "SELECT seq_scan + coalesce(idx_scan, 0) FROM pg_stat_user_tables"
                + " WHERE schemaname = '" + schema + "' AND relname = '" + table + "'").get(0).get(0));
    }

    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("majors")
    void aSignalForAnExcludedTableReadsAndRevealsNothing(int major) throws Exception {
        PgServer pg = servers.computeIfAbsent(major, v -> PgServer.start(PgServer.builder().version(v).build()));
        String p = "ex" + major;
        String hr = p + "_hr";
        String notes = p + ".notifications";
        EndToEndTest.sql(pg, "CREATE SCHEMA " + hr + ";"
                + "CREATE TABLE " + hr + ".secrets (id int PRIMARY KEY, salary numeric(10,2), note varchar(40));"
                + "INSERT INTO " + hr + ".secrets SELECT g, g * 1000.5, 'secret ' || g FROM generate_series(48, 292) g;"
                + "CREATE TABLE public." + p + "_secret (id int PRIMARY KEY, salary numeric(10,2), note varchar(40));"
                + "INSERT INTO public." + p + "_secret SELECT g, g * 1000.5, 'secret ' || g FROM generate_series(48, 292) g;"
                + "CREATE TABLE public." + p + "_data (id int PRIMARY KEY, v text, n int);"
                + "INSERT INTO public." + p + "_data SELECT g, 'v' || g, 0 FROM generate_series(1, 30) g;"
                + "CREATE TABLE public." + p + "_signal (id varchar(42) PRIMARY KEY, type varchar(32) NOT NULL, data varchar(2048));"
                // Every table in the publication: only the connector's settings leave the two out.
                + "CREATE PUBLICATION " + p + "_pub FOR TABLE " + hr + ".secrets, public." + p + "_secret, public." + p + "_data,"
                + " public." + p + "_signal");
        assertEquals("245", EndToEndTest.query(pg, "SELECT count(*) FROM " + hr + ".secrets").get(0).get(0));
        long before = io.pgrepl.testkit.Waits.settled("the excluded tables' scans",
                () -> scans(pg, hr, "secrets") + scans(pg, "public", p + "_secret"));

        Map<String, String> c = EndToEndTest.connectorConfig(pg, p);
        c.remove("table.include.list");
        c.put("publication.autocreate.mode", "disabled");
        c.put("schema.exclude.list", hr);
        c.put("table.exclude.list", "public\\." + p + "_secret.*");
        c.put("snapshot.mode", "no_data");
        c.put("signal.data.collection", "public." + p + "_signal");
        c.put("signal.enabled.channels", "source,kafka");
        c.put("signal.kafka.topic", p + ".signals");
        c.put("signal.kafka.bootstrap.servers", connect.kafka().bootstrapServers());
        c.put("signal.kafka.groupId", p + "-signals");
        c.put("incremental.snapshot.chunk.size", "10");
        c.put("notification.enabled.channels", "sink");
        c.put("notification.sink.topic.name", notes);
        connect.kafka().createTopic(p + ".signals", 1);
        connect.configureConnector(p, c);
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(p, 1, "connector did not start");
        EndToEndTest.awaitSlotActive(pg, p + "_slot");

        // The source channel: an excluded schema's table, an excluded name no table has, then a captured table.
        EndToEndTest.sql(pg, "INSERT INTO public." + p + "_signal VALUES ('s1', 'execute-snapshot', '{\"data-collections\": [\""
                + hr + ".secrets\", \"" + hr + ".nothing_here\"], \"type\": \"incremental\"}')");
        // The kafka channel: an excluded table, the same spelled as PostgreSQL quotes it, and a missing excluded one.
        connect.kafka().produce(p + ".signals", p, "{\"type\": \"execute-snapshot\", \"data\": {\"data-collections\": [\"public."
                + p + "_secret\", \"\\\"public\\\".\\\"" + p + "_secret\\\"\", \"public." + p + "_secret_none\"], \"type\": \"incremental\"}}");
        String data = "public." + p + "_data";
        List<String> excluded = List.of(hr + ".secrets", hr + ".nothing_here", "public." + p + "_secret", "public." + p + "_secret_none");
        String topics = "\\Q" + p + ".\\E(?!signals).*";
        List<Change> all = ConnectHarness.readUntil(connect, topics, Map.of(), l -> {
            for (String t : excluded) if (IncrementalChecks.notificationData(l, notes, t, "TABLE_SCAN_COMPLETED").isEmpty()) return false;
            return true;
        }, Duration.ofSeconds(90));
        // Then a captured table, so that the server's statistics show the connector's reads do arrive.
        EndToEndTest.sql(pg, "INSERT INTO public." + p + "_signal VALUES ('s2', 'execute-snapshot', '{\"data-collections\": [\""
                + data + "\"], \"type\": \"incremental\"}')");
        all = ConnectHarness.readUntil(connect, topics, Map.of(),
                l -> !IncrementalChecks.notificationData(l, notes, data, "TABLE_SCAN_COMPLETED").isEmpty()
                        && IncrementalChecks.reads(l, p + ".public." + p + "_data").size() == 30, Duration.ofSeconds(90));

        // Nothing of the excluded tables reached a topic.
        for (Change ch : all) {
            assertTrue(!ch.topic().contains("secret"), "a record of an excluded table: " + ch.topic());
        }
        // Each excluded name: Debezium's answer, parsed; nothing else was said of it.
        Map<String, JsonNode> answers = new TreeMap<>();
        for (String t : excluded) {
            List<JsonNode> scans = IncrementalChecks.notificationData(all, notes, t, "TABLE_SCAN_COMPLETED");
            assertEquals(1, scans.size(), t + ": " + scans);
            JsonNode d = scans.get(0);
            assertEquals(new TreeSet<>(List.of("connector_name", "data_collections", "scanned_collection", "total_rows_scanned", "status")),
                    fields(d), t + ": " + d);
            assertEquals("UNKNOWN_SCHEMA", d.get("status").asText(), t + ": " + d);
            assertEquals("0", d.get("total_rows_scanned").asText(), t + ": " + d);
            assertEquals(p, d.get("connector_name").asText());
            assertTrue(IncrementalChecks.notificationData(all, notes, t, "IN_PROGRESS").isEmpty(), t + " in progress");
            answers.put(t, d);
        }
        // An excluded table that exists and one that does not are answered alike, but for the name.
        assertEquals(answers.get(hr + ".nothing_here").toString().replace("nothing_here", "X"),
                answers.get(hr + ".secrets").toString().replace("secrets", "X"));
        assertEquals(answers.get("public." + p + "_secret_none").toString().replace("_secret_none", "_X"),
                answers.get("public." + p + "_secret").toString().replace("_secret", "_X"));
        // No notification but the captured table's holds the excluded tables' size or keys (245 rows, keys 48 to 292).
        for (Change ch : all) {
            if (!ch.topic().equals(notes)) continue;
            JsonNode d = IncrementalChecks.payload(ch).get("additional_data");
            if (IncrementalChecks.about(d, data)) continue;
            d.fields().forEachRemaining(e -> {
                for (String leak : List.of("245", "292", "48")) {
                    assertTrue(!e.getValue().asText().matches(".*\\b" + leak + "\\b.*"), e.getKey() + "=" + e.getValue().asText());
                }
            });
        }
        // The captured table was read whole; then the statistics, which carry its scans by now, show none of the others.
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (scans(pg, "public", p + "_data") == 0 && System.nanoTime() < deadline) Thread.sleep(200);
        assertTrue(scans(pg, "public", p + "_data") > 0, "the captured table's reads show in the statistics");
        assertEquals(before, scans(pg, hr, "secrets") + scans(pg, "public", p + "_secret"), "an excluded table was scanned");
        connect.deleteConnector(p);
    }

    private static TreeSet<String> fields(JsonNode d) {
        List<String> out = new ArrayList<>();
        d.fieldNames().forEachRemaining(out::add);
        return new TreeSet<>(out);
    }
}
