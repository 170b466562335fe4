package io.pgrepl.kafka.connect;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pgrepl.kafka.connect.ConnectHarness.Change;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.TypedTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
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
 * pgrepl's connector beside Debezium 3.6.1's PostgreSQL connector in one Connect worker, on the same
 * server, publication and rows ({@link TypedTable}: rows 1 to 3 read by each one's initial snapshot,
 * the same values inserted again as rows 101 to 103 and streamed, and row 101 updated so that its
 * TOASTed value is left out). Under Debezium's default settings and under each handling mode, every
 * column's schema (as the worker's JsonConverter writes it) and value equal Debezium's, in the key,
 * in {@code after} of reads, creates and the update, and in {@code before}; the only differences
 * are those {@link #DOCUMENTED} lists (docs/kafka-connect.md gives the reasons).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class DebeziumParityTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The settings each pair of connectors runs with: Debezium's defaults, then each handling mode. */
    static final List<Map<String, String>> MODES = List.of(
            Map.of(),
            Map.of("decimal.handling.mode", "double", "time.precision.mode", "connect", "hstore.handling.mode", "map",
                    "interval.handling.mode", "string", "binary.handling.mode", "base64", "include.unknown.datatypes", "true"),
            Map.of("decimal.handling.mode", "string", "time.precision.mode", "adaptive_time_microseconds",
                    "binary.handling.mode", "hex"),
            Map.of("time.precision.mode", "isostring", "binary.handling.mode", "base64-url-safe"),
            Map.of("time.precision.mode", "microseconds", "include.unknown.datatypes", "true"),
            Map.of("time.precision.mode", "nanoseconds"));

    /**
     * The differences from Debezium that docs/kafka-connect.md lists, as {@code column: what}
     * (under every mode unless a mode is named), with the reason.
     */
    static final Map<String, String> DOCUMENTED = Map.ofEntries(
            Map.entry("a4: value", "multi-dimensional arrays: Debezium sends a NULL per element of the first dimension, pgrepl the elements flattened"),
            Map.entry("ad: value", "an infinite date in an array: Debezium's snapshot sends a day count of a garbled date; pgrepl Integer.MAX_VALUE"),
            Map.entry("d: value", "infinite dates: Debezium sends a different garbled value in its snapshot and in its stream; pgrepl Integer.MAX_VALUE / MIN_VALUE"),
            Map.entry("dbc: value", "a BC date in Debezium's snapshot loses its era; and -infinity as d"),
            Map.entry("moods: schema", "the elements of an enum array are optional, so a NULL element can be sent (Debezium's are required)"),
            Map.entry("aiv: only pgrepl has it", "interval[]: Debezium drops the column"),
            Map.entry("am: only pgrepl has it", "money[]: Debezium drops the column"),
            Map.entry("anm: only pgrepl has it", "name[]: Debezium drops the column"),
            Map.entry("avb: only pgrepl has it", "varbit[]: Debezium drops the column"));

    /** As {@link #DOCUMENTED}, under the modes without include.unknown.datatypes=true only. */
    static final Map<String, String> DOCUMENTED_UNKNOWN_LEFT_OUT = Map.ofEntries(
            Map.entry("nm: value", "Debezium streams name columns as null (its snapshot reads them)"),
            Map.entry("adnum: only pgrepl has it", "arrays of domains: Debezium drops the column"));

    /** As {@link #DOCUMENTED}, under the modes with include.unknown.datatypes=true only. */
    static final Map<String, String> DOCUMENTED_UNKNOWN_INCLUDED = Map.ofEntries(
            Map.entry("adnum: schema", "arrays of domains: Debezium sends the bytes of each element's text, pgrepl the"
                    + " elements as the domain's base type"),
            Map.entry("adnum: value", "as adnum: schema"));

    private EmbeddedConnectCluster connect;
    private final Map<Integer, PgServer> servers = new HashMap<>();

    @BeforeAll
    void start() {
        connect = ConnectHarness.start("dbz-parity", 1, Map.of());
    }

    @AfterAll
    void stop() {
        if (connect != null) connect.stop();
        servers.values().forEach(PgServer::close);
    }

    static java.util.stream.Stream<Integer> majors() {
        return ConnectHarness.newestAndOldest();
    }

    static Map<String, String> debezium(PgServer pg, String prefix, String publication) {
        Map<String, String> c = new HashMap<>();
        c.put("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        c.put("tasks.max", "1");
        c.put("plugin.name", "pgoutput");
        c.put("database.hostname", "127.0.0.1");
        c.put("database.port", Integer.toString(pg.port()));
        c.put("database.user", pg.superuser().name());
        c.put("database.password", pg.superuser().password());
        c.put("database.dbname", "postgres");
        c.put("slot.name", prefix + "_slot");
        c.put("publication.name", publication);
        c.put("publication.autocreate.mode", "disabled");
        c.put("table.include.list", TypedTable.INCLUDE);
        c.put("topic.prefix", prefix);
        c.put("topic.creation.default.replication.factor", "1");
        c.put("topic.creation.default.partitions", "1");
        return c;
    }

    static Map<String, String> pgrepl(PgServer pg, String prefix, String publication) {
        Map<String, String> c = EndToEndTest.connectorConfig(pg, prefix);
        c.put("publication.name", publication);
        c.put("publication.autocreate.mode", "disabled");
        c.put("table.include.list", TypedTable.INCLUDE);
        c.put("snapshot.mode", "initial");
        return c;
    }

    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("majors")
    void recordsAreDebeziums(int major) throws Exception {
        PgServer pg = servers.computeIfAbsent(major, m -> PgServer.start(PgServer.builder().version(m).build()));
        String pub = "dbzpar_pub";
        EndToEndTest.sql(pg, TypedTable.setup(major) + " DROP PUBLICATION IF EXISTS " + pub + "; CREATE PUBLICATION " + pub
                + " FOR TABLE " + TypedTable.QUALIFIED);
        List<String[]> pairs = new ArrayList<>();
        for (int i = 0; i < MODES.size(); i++) {
            String[] pair = {"dbz" + major + "m" + i, "pgr" + major + "m" + i};
            pairs.add(pair);
            Map<String, String> d = debezium(pg, pair[0], pub);
            Map<String, String> p = pgrepl(pg, pair[1], pub);
            d.putAll(MODES.get(i));
            p.putAll(MODES.get(i));
            connect.configureConnector(pair[0], d);
            connect.configureConnector(pair[1], p);
        }
        for (String[] pair : pairs) {
            for (String name : pair) ConnectHarness.awaitRunning(connect, name, 1, name + " did not start");
        }
        String pattern = "(dbz|pgr)" + major + "m\\d+" + TypedTable.TOPIC_SUFFIX.replace(".", "\\.");
        int connectors = 2 * MODES.size();
        ConnectHarness.readUntil(connect, pattern, Map.of(), l -> count(l, "r") == 3 * connectors, Duration.ofSeconds(180));
        for (String[] pair : pairs) {
            for (String name : pair) EndToEndTest.awaitSlotActive(pg, name + "_slot");
        }
        EndToEndTest.sql(pg, TypedTable.copy(major, 100) + "; UPDATE " + TypedTable.QUALIFIED + " SET i4 = i4 - 1 WHERE \"Id\" = 101");
        List<Change> all = ConnectHarness.readUntil(connect, pattern, Map.of(),
                l -> count(l, "c") == 3 * connectors && count(l, "u") == connectors, Duration.ofSeconds(180));
        for (String[] pair : pairs) {
            connect.deleteConnector(pair[0]);
            connect.deleteConnector(pair[1]);
        }

        // difference -> mode -> where it was seen, with the values
        Map<String, Map<String, TreeSet<String>>> found = new TreeMap<>();
        for (int i = 0; i < MODES.size(); i++) {
            String[] pair = pairs.get(i);
            Map<String, Change> dbz = byOpAndId(all, pair[0] + TypedTable.TOPIC_SUFFIX);
            Map<String, Change> pgr = byOpAndId(all, pair[1] + TypedTable.TOPIC_SUFFIX);
            assertEquals(dbz.keySet(), pgr.keySet(), "the same records (operation and id)");
            String mode = MODES.get(i).isEmpty() ? "defaults" : MODES.get(i).toString();
            Diffs d = new Diffs(found, mode);
            for (String k : dbz.keySet()) {
                // The same names but for the topic prefix.
                JsonNode dk = JSON.readTree(new String(dbz.get(k).rawKey(), UTF_8).replace(pair[0] + ".", "P."));
                JsonNode pk = JSON.readTree(new String(pgr.get(k).rawKey(), UTF_8).replace(pair[1] + ".", "P."));
                JsonNode dv = JSON.readTree(new String(dbz.get(k).rawValue(), UTF_8).replace(pair[0] + ".", "P."));
                JsonNode pv = JSON.readTree(new String(pgr.get(k).rawValue(), UTF_8).replace(pair[1] + ".", "P."));
                compareStruct(d, k + " key", dk.get("schema"), dk.get("payload"), pk.get("schema"), pk.get("payload"));
                d.compare("envelope: schema", k, without(dv.get("schema"), "fields"), without(pv.get("schema"), "fields"));
                d.compare("envelope: fields", k, names(dv.get("schema")), names(pv.get("schema")));
                d.compare("op: value", k, dv.get("payload").get("op"), pv.get("payload").get("op"));
                for (String block : List.of("before", "after")) {
                    compareStruct(d, k + " " + block, field(dv.get("schema"), block), dv.get("payload").get(block),
                            field(pv.get("schema"), block), pv.get("payload").get(block));
                }
            }
        }
        StringBuilder report = new StringBuilder();
        TreeSet<String> keys = new TreeSet<>();
        found.forEach((what, modes) -> {
            boolean everywhere = modes.size() == MODES.size();
            modes.forEach((mode, where) -> {
                if (!everywhere || mode.equals("defaults")) {
                    report.append(everywhere ? "" : mode + " | ").append(what).append("  ").append(where).append('\n');
                }
                keys.add(mode + " | " + what);
            });
        });
        System.out.println("Differences from Debezium on PostgreSQL " + major + ":\n" + report);
        java.util.Set<String> columns = new java.util.HashSet<>();
        TypedTable.columns(major).forEach(c -> columns.add(c.name()));
        TreeSet<String> expected = new TreeSet<>();
        for (Map<String, String> m : MODES) {
            String mode = m.isEmpty() ? "defaults" : m.toString();
            List<String> documented = new ArrayList<>(DOCUMENTED.keySet());
            documented.addAll(("true".equals(m.get("include.unknown.datatypes")) ? DOCUMENTED_UNKNOWN_INCLUDED
                    : DOCUMENTED_UNKNOWN_LEFT_OUT).keySet());
            documented.stream().filter(k -> columns.contains(k.substring(0, k.indexOf(':')))).forEach(k -> expected.add(mode + " | " + k));
        }
        assertEquals(expected, keys, "differences from Debezium on PostgreSQL " + major + ":\n" + report);
    }

    /** Differences under one mode: what (column and kind) to where (record and block) and the two sides. */
    private record Diffs(Map<String, Map<String, TreeSet<String>>> found, String mode) {
        void note(String what, String where) {
            found.computeIfAbsent(what, k -> new TreeMap<>()).computeIfAbsent(mode, k -> new TreeSet<>()).add(where);
        }

        void compare(String what, String where, JsonNode debezium, JsonNode pgrepl) {
            if (!java.util.Objects.equals(debezium, pgrepl)) note(what, where + " (debezium " + debezium + ", pgrepl " + pgrepl + ")");
        }
    }

    private static JsonNode names(JsonNode structSchema) {
        var out = JSON.createArrayNode();
        for (JsonNode f : structSchema.get("fields")) out.add(f.get("field").asText());
        return out;
    }

    /** Each field's schema (name, type, optionality, parameters, version) and value, by field name. */
    private static void compareStruct(Diffs d, String where, JsonNode dSchema, JsonNode dValue, JsonNode pSchema, JsonNode pValue) {
        Map<String, JsonNode> ds = fields(dSchema);
        Map<String, JsonNode> ps = fields(pSchema);
        String block = where.substring(where.lastIndexOf(' ') + 1);
        d.compare(block + ": struct schema", where, without(dSchema, "fields"), without(pSchema, "fields"));
        for (String f : union(ds.keySet(), ps.keySet())) {
            JsonNode dsf = ds.get(f);
            JsonNode psf = ps.get(f);
            if (dsf == null || psf == null) {
                d.note(f + (dsf == null ? ": only pgrepl has it" : ": only debezium has it"), where);
                continue;
            }
            d.compare(f + ": schema", where, dsf, psf);
            JsonNode dv = dValue == null || dValue.isNull() ? null : dValue.get(f);
            JsonNode pv = pValue == null || pValue.isNull() ? null : pValue.get(f);
            d.compare(f + ": value", where, dv, pv);
        }
    }

    private static List<String> union(Iterable<String> a, Iterable<String> b) {
        List<String> out = new ArrayList<>();
        a.forEach(out::add);
        for (String s : b) if (!out.contains(s)) out.add(s);
        return out;
    }

    private static JsonNode without(JsonNode n, String field) {
        if (n == null || n.isNull()) return JSON.nullNode();
        var copy = n.deepCopy();
        ((com.fasterxml.jackson.databind.node.ObjectNode) copy).remove(field);
        ((com.fasterxml.jackson.databind.node.ObjectNode) copy).remove("field");
        return copy;
    }

    private static Map<String, JsonNode> fields(JsonNode structSchema) {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        if (structSchema == null || structSchema.isNull() || structSchema.get("fields") == null) return out;
        for (JsonNode f : structSchema.get("fields")) out.put(f.get("field").asText(), f);
        return out;
    }

    private static JsonNode field(JsonNode envelopeSchema, String name) {
        for (Iterator<JsonNode> it = envelopeSchema.get("fields").elements(); it.hasNext(); ) {
            JsonNode f = it.next();
            if (f.get("field").asText().equals(name)) return f;
        }
        throw new AssertionError("no " + name + " in " + envelopeSchema);
    }

    /** The records of one topic by operation and id ({@code before}'s for a delete), e.g. {@code r1}, {@code c101}. */
    private static Map<String, Change> byOpAndId(List<Change> all, String topic) throws Exception {
        Map<String, Change> out = new TreeMap<>();
        for (Change c : all) {
            if (!c.topic().equals(topic) || c.value() == null) continue;
            JsonNode payload = JSON.readTree(c.rawValue()).get("payload");
            JsonNode row = payload.get("after").isNull() ? payload.get("before") : payload.get("after");
            out.put(payload.get("op").asText() + row.get("Id").asText(), c);
        }
        return out;
    }

    private static long count(List<Change> l, String op) {
        return l.stream().filter(c -> c.value() != null && op.equals(c.op())).count();
    }
}
