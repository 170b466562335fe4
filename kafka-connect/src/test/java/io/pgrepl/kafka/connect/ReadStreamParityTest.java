package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pgrepl.kafka.connect.ConnectHarness.Change;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.TypedTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The parity rule on the connector's face: a row read by the initial copy and by an incremental
 * snapshot's chunk is the same record as the same row streamed (the same key and value schemas,
 * names and parameters included, and the same JSON key and {@code after}) under Debezium's defaults
 * and every handling mode ({@link DebeziumParityTest#MODES}), on the newest and the oldest server.
 * Rows 1 to 3 of {@link TypedTable} are read twice (copy, then chunk); rows 101 to 103 carry the
 * same values and stream. A topic never changes schema because a snapshot ran.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReadStreamParityTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final List<Map<String, String>> MODES = DebeziumParityTest.MODES;

    private EmbeddedConnectCluster connect;
    private final Map<Integer, PgServer> servers = new HashMap<>();

    @BeforeAll
    void start() {
        connect = ConnectHarness.start("parity", 1, Map.of());
    }

    @AfterAll
    void stop() {
        if (connect != null) connect.stop();
        servers.values().forEach(PgServer::close);
    }

    static java.util.stream.Stream<Integer> majors() {
        return ConnectHarness.newestAndOldest();
    }

    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("majors")
    void readsAreStreamedRecords(int major) throws Exception {
        PgServer pg = servers.computeIfAbsent(major, m -> PgServer.start(PgServer.builder().version(m).build()));
        EndToEndTest.sql(pg, TypedTable.setup(major)
                + " DROP TABLE IF EXISTS public.parity_signal;"
                + " CREATE TABLE public.parity_signal (id varchar(42) PRIMARY KEY, type varchar(32) NOT NULL, data varchar(2048))");
        List<String> prefixes = new ArrayList<>();
        for (int i = 0; i < MODES.size(); i++) {
            String p = "par" + major + "m" + i;
            prefixes.add(p);
            Map<String, String> c = EndToEndTest.connectorConfig(pg, p);
            c.put("snapshot.mode", "initial");
            c.put("table.include.list", TypedTable.INCLUDE);
            c.put("signal.data.collection", "public.parity_signal");
            c.putAll(MODES.get(i));
            connect.configureConnector(p, c);
        }
        for (String p : prefixes) ConnectHarness.awaitRunning(connect, p, 1, "connector " + p + " did not start");
        String pattern = "par" + major + "m\\d" + TypedTable.TOPIC_SUFFIX.replace(".", "\\.");
        ConnectHarness.readUntil(connect, pattern, Map.of(), l -> count(l, "r", null) == 3 * MODES.size(), Duration.ofSeconds(120));
        // Debezium's signal, with the names spelled as PostgreSQL quotes them.
        EndToEndTest.sql(pg, "INSERT INTO public.parity_signal VALUES ('parity-1', 'execute-snapshot',"
                + " '{\"data-collections\": [\"" + TypedTable.QUALIFIED.replace("\"", "\\\"") + "\"], \"type\": \"incremental\"}')");
        ConnectHarness.readUntil(connect, pattern, Map.of(), l -> count(l, "r", "incremental") == 3 * MODES.size(), Duration.ofSeconds(120));
        EndToEndTest.sql(pg, TypedTable.copy(major, 100));
        List<Change> all = ConnectHarness.readUntil(connect, pattern, Map.of(), l -> count(l, "c", null) == 3 * MODES.size(),
                Duration.ofSeconds(120));
        for (int i = 0; i < MODES.size(); i++) {
            String topic = prefixes.get(i) + TypedTable.TOPIC_SUFFIX;
            Map<String, Change> copied = new LinkedHashMap<>();
            Map<String, Change> chunked = new LinkedHashMap<>();
            Map<String, Change> streamed = new LinkedHashMap<>();
            for (Change ch : all) {
                if (!ch.topic().equals(topic) || ch.value() == null) continue;
                JsonNode payload = JSON.readTree(ch.rawValue()).get("payload");
                String id = payload.get("after").get("Id").asText();
                String snapshot = payload.get("source").get("snapshot").asText();
                Map<String, Change> path = payload.get("op").asText().equals("c") ? streamed
                        : snapshot.equals("incremental") ? chunked : copied;
                path.put(id, ch);
            }
            for (int id = 1; id <= 3; id++) {
                Change twin = streamed.get(Integer.toString(id + 100));
                assertNotNull(twin, topic + ": row " + (id + 100) + " streamed");
                for (Map.Entry<String, Change> read : Map.of("copy", copied.get(Integer.toString(id)),
                        "chunk", chunked.get(Integer.toString(id))).entrySet()) {
                    String what = topic + " " + MODES.get(i) + ": the " + read.getKey() + " read of row " + id;
                    Change r = read.getValue();
                    assertNotNull(r, what + " arrived");
                    assertEquals(twin.key().schema(), r.key().schema(), what + ": key schema");
                    assertEquals(twin.value().schema(), r.value().schema(), what + ": value schema");
                    assertEquals(JSON.readTree(twin.rawKey()).get("schema"), JSON.readTree(r.rawKey()).get("schema"), what + ": the JSON key schema");
                    assertEquals(afterSchema(twin), afterSchema(r), what + ": the JSON schema of after");
                    JsonNode a = afterWithoutKey(twin);
                    JsonNode b = afterWithoutKey(r);
                    for (java.util.Iterator<String> f = a.fieldNames(); f.hasNext(); ) {
                        String name = f.next();
                        assertEquals(a.get(name), b.get(name), what + ": after." + name);
                    }
                    assertEquals(a, b, what + ": after");
                }
            }
        }
        for (String p : prefixes) connect.deleteConnector(p);
    }

    /** How many records of {@code op} (and, when given, {@code source.snapshot}) the topics hold. */
    private static long count(List<Change> l, String op, String snapshot) {
        return l.stream().filter(c -> c.value() != null && op.equals(c.op()))
                .filter(c -> snapshot == null || snapshot.equals(c.value().getStruct("source").getString("snapshot"))).count();
    }

    private static JsonNode afterSchema(Change c) throws Exception {
        for (JsonNode f : JSON.readTree(c.rawValue()).get("schema").get("fields")) {
            if (f.get("field").asText().equals("after")) return f;
        }
        throw new AssertionError("no after in the schema of " + c.topic());
    }

    private static JsonNode afterWithoutKey(Change c) throws Exception {
        ObjectNode after = (ObjectNode) JSON.readTree(c.rawValue()).get("payload").get("after");
        after.remove("Id");
        return after;
    }
}
