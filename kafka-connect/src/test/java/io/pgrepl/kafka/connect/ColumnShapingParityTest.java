package io.pgrepl.kafka.connect;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.debezium.relational.Column;
import io.debezium.relational.mapping.MaskStrings;
import io.pgrepl.kafka.connect.ConnectHarness.Change;
import io.pgrepl.testkit.PgServer;
import java.sql.Types;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
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
 * The column settings beside Debezium 3.6.1's connector, in one Connect worker, on the same rows:
 * masks, v1 and v2 hashes (one cut to a varchar(8)), truncation of varchar(n), text with characters
 * outside the BMP and bytea, message.key.columns naming the primary key, a hashed and a masked column, a
 * quoted column name, a row of NULLs, and values TOASTed out of line (incompressible, past 2 kB)
 * that an update leaves unchanged. Rows 1 to 3 are read by each one's initial snapshot, copied as
 * rows 101 to 103 and streamed, row 101 updated (its TOASTed values unchanged) and row 102 deleted.
 * Every field's schema and value, in the key, {@code before} and {@code after}, equals Debezium's
 * but for {@link #DOCUMENTED} (docs/migrating-from-debezium.md gives the same list).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ColumnShapingParityTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String SALT_V2 = "pepper.ü";
    private static final String SALT_V1 = "salt;1";
    private static final String PLACEHOLDER = "__debezium_unavailable_value";

    /** Where pgrepl differs, as {@code block field: what}, with the reason. */
    static final Map<String, String> DOCUMENTED = Map.ofEntries(
            Map.entry("key email: value", "a hashed column named by message.key.columns is hashed in the key too; Debezium sends it in clear there"),
            Map.entry("key email: schema", "as key email: value, and its field schema says so (masked=true)"),
            Map.entry("key pin: value", "a masked column named by message.key.columns is masked in the key too; Debezium sends it in clear there"),
            Map.entry("key pin: schema", "as key pin: value (masked=true)"),
            Map.entry("after Full Name: value", "a masked NULL stays NULL; Debezium sends the mask"),
            Map.entry("after blurb: value", "a masked NULL stays NULL; Debezium sends the mask"),
            Map.entry("before Full Name: value", "a masked NULL stays NULL (a delete's old row has only the key); Debezium sends the mask"),
            Map.entry("before blurb: value", "as before Full Name"),
            Map.entry("after pin: value", "as after Full Name"),
            Map.entry("before pin: value", "as before Full Name"));

    /** A table of {@code major}'s server: its name and the settings both connectors get. */
    private static Map<String, String> shaping(String table) {
        String t = "public\\." + table + "\\.";
        Map<String, String> c = new HashMap<>();
        c.put("column.mask.with.6.chars", t + "(full name|blurb|pin)");
        c.put("column.mask.hash.v2.SHA-256.with.salt." + SALT_V2, t + "(email|secret)");
        c.put("column.mask.hash.MD5.with.salt." + SALT_V1, t + "(code|legacy)");
        c.put("column.truncate.to.5.chars", t + "(street|note|bin)");
        c.put("message.key.columns", "public\\." + table + ":id,email,pin");
        c.put("table.include.list", "public\\." + table);
        return c;
    }

    private EmbeddedConnectCluster connect;
    private final Map<Integer, PgServer> servers = new HashMap<>();
    /** By major: record (op and id, e.g. u101) to block and field to the two sides' schema and value. */
    private final Map<Integer, Run> runs = new HashMap<>();

    /** One major's records, both sides, and the differences found. */
    private record Run(Map<String, Map<String, JsonNode[]>> debezium, Map<String, Map<String, JsonNode[]>> pgrepl,
                       Map<String, TreeSet<String>> differences) {
        JsonNode value(boolean pgreplSide, String record, String field) {
            Map<String, JsonNode[]> r = (pgreplSide ? pgrepl : debezium).get(record);
            assertTrue(r != null, record + " missing on " + (pgreplSide ? "pgrepl's" : "Debezium's") + " side");
            JsonNode[] f = r.get(field);
            return f == null ? null : f[1];
        }
    }

    @BeforeAll
    void start() {
        connect = ConnectHarness.start("colpar", 1, Map.of());
    }

    @AfterAll
    void stop() {
        if (connect != null) connect.stop();
        servers.values().forEach(PgServer::close);
    }

    static java.util.stream.Stream<Integer> majors() {
        return ConnectHarness.newestAndOldest();
    }

    /** An unchanged TOASTed value in a masked, hashed (v1, v2) or truncated column: what Debezium sends for its placeholder. */
    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("majors")
    void unchangedToastedValuesAreShapedAsDebeziumShapesThePlaceholder(int major) throws Exception {
        Run run = run(major);
        for (String field : List.of("secret", "legacy", "blurb", "note", "bin")) {
            assertEquals(run.value(false, "u101", "after " + field), run.value(true, "u101", "after " + field), field);
        }
        // From outside either connector: Debezium's own classes on the placeholder.
        assertEquals(hash("SHA-256", SALT_V2, MaskStrings.HashingByteArrayStrategy.V2, PLACEHOLDER, -1), run.value(true, "u101", "after secret").asText());
        assertEquals(hash("MD5", SALT_V1, MaskStrings.HashingByteArrayStrategy.V1, PLACEHOLDER, -1), run.value(true, "u101", "after legacy").asText());
        assertEquals("******", run.value(true, "u101", "after blurb").asText());
        assertEquals(PLACEHOLDER.substring(0, 5), run.value(true, "u101", "after note").asText());
        // bytea: Debezium's truncation leaves the placeholder's bytes whole.
        assertEquals(java.util.Base64.getEncoder().encodeToString(PLACEHOLDER.getBytes(UTF_8)), run.value(true, "u101", "after bin").asText());
    }

    /**
     * message.key.columns: the value's primary key stays required and the key's fields have
     * Debezium's optionality; a hashed or masked key column is hashed or masked in the key too
     * (Debezium sends it in clear there).
     */
    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("majors")
    void messageKeyColumnsKeepDebeziumsOptionalityAndHideTheKey(int major) throws Exception {
        Run run = run(major);
        for (String record : List.of("r1", "c101", "u101", "d102")) {
            for (String field : List.of("key id", "key email", "key pin", "after id", "before id")) {
                JsonNode[] d = run.debezium().get(record).get(field);
                JsonNode[] p = run.pgrepl().get(record).get(field);
                if (d == null && p == null) continue; // no before in a read, no after in a delete
                // The hashed and masked key columns' schemas say masked=true (DOCUMENTED): their optionality is compared.
                if (field.equals("key email") || field.equals("key pin")) assertEquals(d[0].get("optional"), p[0].get("optional"), record + " " + field);
                else assertEquals(d[0], p[0], record + " " + field + " schema");
            }
        }
        assertTrue(!run.pgrepl().get("r1").get("after id")[0].get("optional").asBoolean(), "the primary key is required in Value");
        String email = "ada@example.org";
        assertEquals(email, run.value(false, "r1", "key email").asText());
        assertEquals(hash("SHA-256", SALT_V2, MaskStrings.HashingByteArrayStrategy.V2, email, 30), run.value(true, "r1", "key email").asText());
        assertEquals(run.value(false, "r1", "after email"), run.value(true, "r1", "after email"));
        assertEquals("1234", run.value(false, "r1", "key pin").asText());
        assertEquals("******", run.value(true, "r1", "key pin").asText());
        assertEquals(run.value(false, "r1", "after pin"), run.value(true, "r1", "after pin"));
    }

    /** column.truncate.to.N.chars: never longer than Debezium's cut, which here splits no pair and so is equal. */
    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("majors")
    void truncationCutsUtf16UnitsAsDebeziumDoes(int major) throws Exception {
        Run run = run(major);
        for (String record : List.of("r1", "r3", "c101", "c103")) {
            for (String field : List.of("after note", "after street")) {
                JsonNode d = run.value(false, record, field);
                JsonNode p = run.value(true, record, field);
                assertEquals(d, p, record + " " + field);
            }
        }
        assertEquals("bi\uD83D\uDE00o", run.value(true, "r1", "after note").asText());
        assertEquals("\uD83D\uDE00\uD83D\uDE00x", run.value(true, "r3", "after street").asText());
    }

    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("majors")
    void recordsAreDebeziumsButForTheDocumentedDifferences(int major) throws Exception {
        Run run = run(major);
        StringBuilder report = new StringBuilder();
        run.differences().forEach((what, where) -> report.append(what).append("  ").append(where).append('\n'));
        System.out.println("Column settings, differences from Debezium on PostgreSQL " + major + ":\n" + report);
        assertEquals(new TreeSet<>(DOCUMENTED.keySet()), new TreeSet<>(run.differences().keySet()), report.toString());
    }

    private synchronized Run run(int major) throws Exception {
        Run r = runs.get(major);
        if (r == null) {
            r = capture(major);
            runs.put(major, r);
        }
        return r;
    }

    private Run capture(int major) throws Exception {
        PgServer pg = servers.computeIfAbsent(major, m -> PgServer.start(PgServer.builder().version(m).build()));
        String table = "colpar" + major + "_rows";
        String pub = "colpar" + major + "_pub";
        // Out-of-line TOAST: hex digests and random bytes past 2 kB do not compress.
        String big = "(SELECT string_agg(md5('%s' || g), '') FROM generate_series(1, 200) g)";
        EndToEndTest.sql(pg, "CREATE TABLE " + table + " (id int PRIMARY KEY, \"Full Name\" varchar(40), email varchar(30),"
                + " code varchar(8), street varchar(20), note text, secret text, legacy text, blurb text, bin bytea, n int, pin varchar(6));"
                + "INSERT INTO " + table + " VALUES (1, 'Ada Lovelace', 'ada@example.org', 'C-001', 'Long Street Name',"
                + " 'bi😀o-' || " + big.formatted("n") + ", " + big.formatted("s") + ", " + big.formatted("l") + ", "
                + big.formatted("b") + ", decode(" + big.formatted("y") + ", 'hex'), 1, '1234'),"
                + " (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, 2, NULL),"
                + " (3, 'Zoë 漢字', 'zoë@例え.jp', 'ü', '😀😀x😀', 'a😀', 'short ünï', 'short', 'short', '\\x00ff', 3, '9876');"
                + "CREATE PUBLICATION " + pub + " FOR TABLE " + table);
        String dbz = "cpd" + major;
        String pgr = "cpp" + major;
        Map<String, String> d = DebeziumParityTest.debezium(pg, dbz, pub);
        Map<String, String> p = DebeziumParityTest.pgrepl(pg, pgr, pub);
        d.putAll(shaping(table));
        p.putAll(shaping(table));
        connect.configureConnector(dbz, d);
        connect.configureConnector(pgr, p);
        for (String name : List.of(dbz, pgr)) connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(name, 1, name + " did not start");
        String topics = "cp[dp]" + major + "\\.public\\." + table;
        ConnectHarness.readUntil(connect, topics, Map.of(), l -> count(l, "r") == 6, Duration.ofSeconds(180));
        for (String name : List.of(dbz, pgr)) EndToEndTest.awaitSlotActive(pg, name + "_slot");
        EndToEndTest.sql(pg, "INSERT INTO " + table + " SELECT id + 100, \"Full Name\", email, code, street, note, secret, legacy,"
                + " blurb, bin, n, pin FROM " + table + ";"
                + "UPDATE " + table + " SET n = n + 1 WHERE id = 101;" // the TOASTed values are left out
                + "DELETE FROM " + table + " WHERE id = 102");
        List<Change> all = ConnectHarness.readUntil(connect, topics, Map.of(),
                l -> count(l, "c") == 6 && count(l, "u") == 2 && count(l, "d") == 2, Duration.ofSeconds(180));
        connect.deleteConnector(dbz);
        connect.deleteConnector(pgr);
        Map<String, Map<String, JsonNode[]>> theirs = records(all, dbz + ".public." + table, dbz);
        Map<String, Map<String, JsonNode[]>> ours = records(all, pgr + ".public." + table, pgr);
        assertEquals(theirs.keySet(), ours.keySet(), "the same records (operation and id)");
        Map<String, TreeSet<String>> differences = new TreeMap<>();
        for (String record : theirs.keySet()) {
            Map<String, JsonNode[]> a = theirs.get(record);
            Map<String, JsonNode[]> b = ours.get(record);
            TreeSet<String> fields = new TreeSet<>(a.keySet());
            fields.addAll(b.keySet());
            for (String f : fields) {
                JsonNode[] x = a.get(f);
                JsonNode[] y = b.get(f);
                if (x == null || y == null) {
                    differences.computeIfAbsent(f + (x == null ? ": only pgrepl has it" : ": only debezium has it"), k -> new TreeSet<>()).add(record);
                    continue;
                }
                for (int i = 0; i < 2; i++) {
                    if (!x[i].equals(y[i])) {
                        differences.computeIfAbsent(f + (i == 0 ? ": schema" : ": value"), k -> new TreeSet<>())
                                .add(record + " (debezium " + abbreviated(x[i]) + ", pgrepl " + abbreviated(y[i]) + ")");
                    }
                }
            }
        }
        return new Run(theirs, ours, differences);
    }

    /**
     * A topic's records by operation and id ({@code before}'s for a delete), each as {@code block
     * field} (key, before, after; the topic prefix replaced) to its field schema and value.
     */
    private static Map<String, Map<String, JsonNode[]>> records(List<Change> all, String topic, String prefix) throws Exception {
        Map<String, Map<String, JsonNode[]>> out = new TreeMap<>();
        for (Change c : all) {
            if (!c.topic().equals(topic) || c.value() == null) continue;
            JsonNode key = JSON.readTree(new String(c.rawKey(), UTF_8).replace(prefix + ".", "P."));
            JsonNode value = JSON.readTree(new String(c.rawValue(), UTF_8).replace(prefix + ".", "P."));
            JsonNode payload = value.get("payload");
            JsonNode row = payload.get("after").isNull() ? payload.get("before") : payload.get("after");
            Map<String, JsonNode[]> fields = new LinkedHashMap<>();
            put(fields, "key", key.get("schema"), key.get("payload"));
            for (JsonNode f : value.get("schema").get("fields")) {
                String block = f.get("field").asText();
                if (block.equals("before") || block.equals("after")) {
                    fields.put(block + ": struct", new JsonNode[] {without(f), JSON.nullNode()});
                    put(fields, block, f, payload.get(block));
                }
            }
            out.put(payload.get("op").asText() + row.get("id").asText(), fields);
        }
        return out;
    }

    private static void put(Map<String, JsonNode[]> out, String block, JsonNode structSchema, JsonNode struct) {
        if (struct == null || struct.isNull()) return;
        for (JsonNode f : structSchema.get("fields")) {
            String name = f.get("field").asText();
            JsonNode v = struct.get(name);
            out.put(block + " " + name, new JsonNode[] {f, v == null ? JSON.nullNode() : v});
        }
    }

    private static JsonNode without(JsonNode structField) {
        var copy = (com.fasterxml.jackson.databind.node.ObjectNode) structField.deepCopy();
        copy.remove("fields");
        return copy;
    }

    private static String abbreviated(JsonNode n) {
        String s = n.toString();
        return s.length() > 80 ? s.substring(0, 80) + "..." : s;
    }

    /** Debezium's own hash ({@code algorithm}) of {@code value} for a text column, or a varchar({@code length}). */
    private static String hash(String algorithm, String salt, MaskStrings.HashingByteArrayStrategy strategy, String value, int length) {
        Column c = Column.editor().name("c").type(length > 0 ? "varchar" : "text").jdbcType(Types.VARCHAR)
                .length(length > 0 ? length : Integer.MAX_VALUE).create();
        return (String) new MaskStrings(salt.getBytes(UTF_8), algorithm, strategy).create(c).convert(value);
    }

    private static long count(List<Change> l, String op) {
        return l.stream().filter(c -> c.value() != null && op.equals(c.op())).count();
    }
}
