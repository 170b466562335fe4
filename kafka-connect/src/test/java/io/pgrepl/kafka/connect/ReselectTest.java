package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pgrepl.kafka.connect.ConnectHarness.Change;
import io.pgrepl.testkit.PgServer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * reselect.unavailable.values against real PostgreSQL (newest and oldest majors) and a real Connect
 * worker: two connectors on the same tables, one with the option and one without, so every record
 * of the one can be compared with its twin. Expected values come from the source table, read here.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ReselectTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String P = EndToEndTest.PLACEHOLDER;
    private EmbeddedConnectCluster connect;
    private final List<PgServer> servers = new ArrayList<>();

    @BeforeAll
    void start() {
        connect = ConnectHarness.start("reselect", 1, Map.of());
    }

    @AfterAll
    void stop() {
        if (connect != null) connect.stop();
        servers.forEach(PgServer::close);
    }

    /** About 19 kB of md5 hex per row, stored out of line and uncompressed (STORAGE EXTERNAL): always TOASTed. */
    private static String big(int seed) {
        return "(SELECT string_agg(md5((x + " + seed * 1000 + ")::text), '') FROM generate_series(1, 600) x)";
    }

    @ParameterizedTest
    @MethodSource("io.pgrepl.kafka.connect.ConnectHarness#newestAndOldest")
    void unchangedToastedValuesAreReadBackByKey(int major) throws Exception {
        PgServer pg = PgServer.start(PgServer.builder().version(major).build());
        servers.add(pg);
        EndToEndTest.sql(pg, "CREATE TABLE rs_t (id int PRIMARY KEY, k int, doc text, bin bytea);"
                + " ALTER TABLE rs_t ALTER COLUMN doc SET STORAGE EXTERNAL, ALTER COLUMN bin SET STORAGE EXTERNAL;"
                + " CREATE TABLE rs_c (a int, b text, k int, doc text, PRIMARY KEY (a, b));"
                + " ALTER TABLE rs_c ALTER COLUMN doc SET STORAGE EXTERNAL;"
                + " CREATE TABLE rs_f (id int PRIMARY KEY, k int, doc text);"
                + " ALTER TABLE rs_f ALTER COLUMN doc SET STORAGE EXTERNAL;"
                + " INSERT INTO rs_t SELECT i, 0, (SELECT string_agg(md5((x + i * 1000)::text), '') FROM generate_series(1, 600) x),"
                + " (SELECT decode(string_agg(md5((x - i * 1000)::text), ''), 'hex') FROM generate_series(1, 600) x)"
                + " FROM generate_series(1, 4) i;"
                + " INSERT INTO rs_c VALUES (1, 'a', 0, " + big(7) + "), (1, 'b', 0, " + big(8) + ");"
                + " INSERT INTO rs_f VALUES (1, 0, " + big(9) + ")");
        String off = "rsoff" + major;
        String on = "rson" + major;
        for (String name : List.of(off, on)) {
            Map<String, String> c = EndToEndTest.connectorConfig(pg, name);
            c.put("table.include.list", "public\\.rs_.*");
            if (name.equals(on)) c.put("reselect.unavailable.values", "true");
            connect.configureConnector(name, c);
        }
        for (String name : List.of(off, on)) {
            ConnectHarness.awaitRunning(connect, name, 1, name + " did not start");
            EndToEndTest.awaitSlotActive(pg, name + "_slot");
        }
        // One small transaction: one chunk, so one poll() batch for the records of both tables.
        EndToEndTest.sql(pg, "BEGIN;"
                + " UPDATE rs_t SET k = 1 WHERE id = 1;"
                + " INSERT INTO rs_t SELECT 10, 0, 'small', bin FROM rs_t WHERE id = 1;" // bin streamed in full
                + " UPDATE rs_t SET k = 2, doc = 'changed' WHERE id = 2;"
                + " UPDATE rs_t SET k = 3 WHERE id = 3;"
                + " DELETE FROM rs_t WHERE id = 3;" // gone before any poll can see the update
                + " UPDATE rs_c SET k = 1 WHERE a = 1 AND b = 'b';"
                + " UPDATE rs_t SET k = 4 WHERE id = 4;"
                + " COMMIT");
        // The column is renamed before the update is polled: the re-select by its old name fails.
        EndToEndTest.sql(pg, "BEGIN; UPDATE rs_f SET k = 5 WHERE id = 1; ALTER TABLE rs_f RENAME doc TO doc2; COMMIT");
        EndToEndTest.sql(pg, "UPDATE rs_f SET k = 6 WHERE id = 1");
        EndToEndTest.sql(pg, "INSERT INTO rs_t VALUES (99, 0, 'end', NULL)");

        String prefixes = "(" + off + "|" + on + ")";
        List<Change> all = ConnectHarness.readUntil(connect, prefixes + "\\.public\\.rs_.*", Map.of(),
                l -> List.of(off, on).stream().allMatch(n -> l.stream().anyMatch(c -> c.topic().equals(n + ".public.rs_t")
                        && "c".equals(c.op()) && c.value().getStruct("after").getInt32("id") == 99)
                        && l.stream().filter(c -> c.topic().equals(n + ".public.rs_f")).count() == 2),
                Duration.ofSeconds(60), 3);
        String doc1 = source(pg, "SELECT doc FROM rs_t WHERE id = 1");
        String doc4 = source(pg, "SELECT doc FROM rs_t WHERE id = 4");
        assertTrue(doc1.length() > 8192 && !doc1.equals(doc4), "distinct TOASTed values in the source");
        // bytea as binary.handling.mode=bytes writes it: base64 (PostgreSQL's breaks lines every 76 characters).
        String bin1 = source(pg, "SELECT replace(encode(bin, 'base64'), E'\\n', '') FROM rs_t WHERE id = 1");
        String bin2 = source(pg, "SELECT replace(encode(bin, 'base64'), E'\\n', '') FROM rs_t WHERE id = 2");
        String bin4 = source(pg, "SELECT replace(encode(bin, 'base64'), E'\\n', '') FROM rs_t WHERE id = 4");
        String pBytes = Base64.getEncoder().encodeToString(P.getBytes(StandardCharsets.UTF_8));
        assertTrue(bin1.length() > 8192 && !bin1.contains("\n"));

        // rs_t: every record, in order; the option changes nothing but the unavailable values.
        List<String> order = List.of("u:1", "c:10", "u:2", "u:3", "d:3", "tombstone:3", "u:4", "c:99");
        assertEquals(order, ops(all, off + ".public.rs_t"));
        assertEquals(order, ops(all, on + ".public.rs_t"), "no record lost or moved");
        List<JsonNode> offAfter = afters(all, off + ".public.rs_t");
        List<JsonNode> onAfter = afters(all, on + ".public.rs_t");
        assertEquals(List.of(P, "small", "changed", P, "-", "-", P, "end"), docs(offAfter), "without the option: the placeholder");
        assertEquals(List.of(doc1, "small", "changed", P, "-", "-", doc4, "end"), docs(onAfter),
                "with it: the source's values; the row deleted before the poll keeps the placeholder");
        assertEquals(List.of(pBytes, bin1, pBytes, pBytes, "-", "-", pBytes, "null"), values(offAfter, "bin"));
        assertEquals(List.of(bin1, bin1, bin2, pBytes, "-", "-", bin4, "null"), values(onAfter, "bin"),
                "bytea read back converts as the streamed insert of the same value (row 10)");
        for (int i = 0; i < order.size(); i++) {
            assertEquals(withoutDoc(offAfter.get(i)), withoutDoc(onAfter.get(i)), "record " + order.get(i) + " otherwise untouched");
        }

        // rs_c: a composite key.
        List<JsonNode> cOff = afters(all, off + ".public.rs_c");
        List<JsonNode> cOn = afters(all, on + ".public.rs_c");
        assertEquals(1, cOn.size());
        assertEquals("b", cOn.get(0).get("b").asText());
        assertEquals(List.of(P), docs(cOff));
        String docB = source(pg, "SELECT doc FROM rs_c WHERE a = 1 AND b = 'b'");
        assertNotEquals(source(pg, "SELECT doc FROM rs_c WHERE a = 1 AND b = 'a'"), docB);
        assertEquals(List.of(docB), docs(cOn), "the composite key's row read back");

        // rs_f: a failed re-select keeps the placeholder and delivers the record; the next batch reads again.
        List<JsonNode> fOn = afters(all, on + ".public.rs_f");
        assertEquals(List.of(5, 6), fOn.stream().map(a -> a.get("k").asInt()).toList());
        assertEquals(P, fOn.get(0).get("doc").asText(), "the failed query's batch keeps the placeholder");
        assertEquals(source(pg, "SELECT doc2 FROM rs_f WHERE id = 1"), fOn.get(1).get("doc2").asText(),
                "a later batch is read again");
        assertEquals(P, afters(all, off + ".public.rs_f").get(1).get("doc2").asText());
        connect.deleteConnector(off);
        connect.deleteConnector(on);
    }

    private static String source(PgServer pg, String sql) throws Exception {
        return EndToEndTest.query(pg, sql).get(0).get(0);
    }

    private static List<Change> topic(List<Change> all, String topic) {
        return all.stream().filter(c -> c.topic().equals(topic)).sorted(Comparator.comparingLong(Change::offset)).toList();
    }

    /** Each record as op:id (the key's id for a tombstone), parsed from the raw JSON. */
    private static List<String> ops(List<Change> all, String topic) throws Exception {
        List<String> out = new ArrayList<>();
        for (Change c : topic(all, topic)) {
            if (c.rawValue() == null) {
                out.add("tombstone:" + c.key().getInt32("id"));
                continue;
            }
            JsonNode p = JSON.readTree(c.rawValue()).get("payload");
            JsonNode row = p.get("after").isNull() ? p.get("before") : p.get("after");
            out.add(p.get("op").asText() + ":" + row.get("id").asInt());
        }
        return out;
    }

    /** The {@code after} of each record (a JSON null for deletes and tombstones), from the raw JSON. */
    private static List<JsonNode> afters(List<Change> all, String topic) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        for (Change c : topic(all, topic)) {
            out.add(c.rawValue() == null ? JSON.nullNode() : JSON.readTree(c.rawValue()).get("payload").get("after"));
        }
        return out;
    }

    private static List<String> docs(List<JsonNode> afters) {
        return values(afters, "doc");
    }

    /** Column {@code name} of each {@code after}: "-" without an after, "null" for a null value. */
    private static List<String> values(List<JsonNode> afters, String name) {
        return afters.stream().map(a -> a.isNull() ? "-" : a.get(name).isNull() ? "null" : a.get(name).asText()).toList();
    }

    private static JsonNode withoutDoc(JsonNode after) {
        if (after.isNull()) return after;
        ObjectNode copy = after.deepCopy();
        copy.remove(List.of("doc", "bin"));
        return copy;
    }
}
