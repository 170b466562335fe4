package io.pgrepl.benchmarks.connect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pgrepl.client.PgConnection;
import io.pgrepl.testkit.PgServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;

/**
 * The typed-values workload of kafka-connect's {@code EndToEndTest} (its {@code _types} table and
 * rows, the same updates, key change and delete), plus a table of types that suite leaves out (an
 * enum and an enum array, float4, signed zeros and infinities, timetz, timestamp(3), numeric(5,2)),
 * and a copy of {@code _types} with REPLICA IDENTITY FULL ({@code fid_more} has it too), updated and
 * deleted in a second transaction so that {@code before} carries whole rows. Both connectors stream it
 * from two slots created before the writes; then both take an initial snapshot of the tables as they
 * ended ({@code op=r}). Every topic is read back (keys and values; the worker's JsonConverter, schemas
 * enabled) and parsed with Jackson; record i of one topic is compared with record i of the other
 * (snapshot reads sorted by id): the key, the operation, every {@code before} and {@code after}
 * field's value, every {@code source} field's value (except {@code version} and {@code name}, which
 * differ by construction; one line per field with the number of records that differ), and once per
 * table the schemas of the key, the envelope, {@code before}, {@code after} and {@code source}.
 * Returns one line per difference.
 */
final class Fidelity {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** EndToEndTest.TYPES_DDL's {@code _types} table, the other types, a REPLICA IDENTITY FULL copy, the end marker. */
    static final String DDL = """
            CREATE TABLE fid_types (id int PRIMARY KEY, i2 int2, i4 int4, i8 int8, b bool, f8 float8,
              n numeric(20,5), nv numeric, t text, vc varchar(60), bc char(5), by bytea, u uuid, j jsonb,
              d date, ts timestamp, tz timestamptz, tm time, iv interval, ai int4[], at text[]);
            CREATE TYPE fid_mood AS ENUM ('sad', 'ok', 'happy');
            CREATE TABLE fid_more (id int PRIMARY KEY, e fid_mood, ea fid_mood[], f4 float4, f8 float8,
              ttz timetz, ts3 timestamp(3), n2 numeric(5,2), tz0 timestamptz(0), i8a int8[]);
            ALTER TABLE fid_more REPLICA IDENTITY FULL;
            CREATE TABLE fid_full (LIKE fid_types INCLUDING ALL);
            ALTER TABLE fid_full REPLICA IDENTITY FULL;
            CREATE TABLE fid_end (id int PRIMARY KEY);
            CREATE PUBLICATION fid_pub FOR TABLE fid_types, fid_more, fid_full, fid_end;
            """;

    /** The tables compared (fid_end only marks the end). */
    static final List<String> TABLES = List.of("fid_types", "fid_more", "fid_full");

    /** EndToEndTest.TYPES_ROWS, then its updates, key change and delete; the other types; a copy of the rows. */
    static final String ROWS = """
            INSERT INTO fid_types VALUES
             (1, -32768, -2147483648, '-9223372036854775808', true, '0.1', '-123456789012345.12345', '1e-100',
              'it''s "q" back\\slash	tab ünï 漢字 😀', 'abcdef', 'ab', '\\x00ff10', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
              '{"b": [1, {"c": "é😀"}], "a": null}', '2000-01-01', '1999-12-31 23:59:59.999999',
              '2024-06-30 23:59:59.123456+05:45', '24:00:00', '1 year 2 mons -3 days 04:05:06.789',
              '{1,NULL,-3}', ARRAY['a,b', '{c}', 'q"uote', NULL, 'NULL', '']),
             (2, 32767, 2147483647, 9223372036854775807, false, '1e308', '0.00001', '-12345678901234567890.000012345',
              '', 'x', 'abcde', '', 'ffffffff-ffff-ffff-ffff-ffffffffffff', '[]', '0044-03-15 BC',
              '0044-03-15 12:30:00.25 BC', '0044-03-15 12:00:00+00 BC', '00:00', '-00:00:00.000001', '{}', '{}'),
             (3, 0, 0, 0, NULL, '-1.5e-300', NULL, 'NaN', NULL, NULL, NULL, NULL, NULL, NULL, '5874897-12-31',
              '1970-01-01 00:00:00.000001', '2000-01-01 00:00:00+00', '12:34:56.000001', '0', NULL, NULL);
            INSERT INTO fid_full SELECT * FROM fid_types;
            UPDATE fid_types SET i4 = i4 - 1, t = 'changed' WHERE id = 2;
            UPDATE fid_types SET id = 30 WHERE id = 3;
            DELETE FROM fid_types WHERE id = 1;
            INSERT INTO fid_types (id, t) VALUES (4, 'after delete');
            INSERT INTO fid_more VALUES
             (1, 'happy', '{sad,ok}', '-0', '-0', '12:34:56.789+05:30', '2024-01-02 03:04:05.678', '123.45',
              '2024-01-02 03:04:05+00', '{1,-9223372036854775808}'),
             (2, NULL, '{}', 'Infinity', '-Infinity', '00:00:00+00', '1970-01-01 00:00:00', '-0.01',
              '1969-12-31 23:59:59+00', NULL),
             (3, 'sad', NULL, '3.4028235e38', '0', '23:59:59.999999-14:59', NULL, NULL, NULL, '{}');
            """;

    /** A second transaction (so that {@code source.sequence} has a previous commit): updates and deletes of whole rows. */
    static final String ROWS_FULL = """
            UPDATE fid_full SET i4 = i4 - 1, t = 'changed' WHERE id = 2;
            UPDATE fid_full SET id = 30 WHERE id = 3;
            UPDATE fid_full SET n = n + 1 WHERE id = 1;
            DELETE FROM fid_full WHERE id = 1;
            UPDATE fid_more SET e = 'ok', f4 = '1.5' WHERE id = 1;
            DELETE FROM fid_more WHERE id = 2;
            INSERT INTO fid_end VALUES (1);
            """;

    /** Source fields whose values differ by construction: the connector's version, and the topic prefix. */
    private static final Set<String> SOURCE_BY_CONSTRUCTION = Set.of("version", "name");
    /** Envelope fields compared elsewhere, or whose values are the worker's clock when it processed the change. */
    private static final Set<String> ENVELOPE_NOT_VALUES = Set.of("before", "after", "source", "op", "ts_ms", "ts_us", "ts_ns");

    /** One record of a topic: its key and value, parsed (a tombstone's value is JSON null). */
    record Rec(JsonNode key, JsonNode value) {}

    private final PgServer pg;
    private final EmbeddedConnectCluster connect;
    private final TopicWatch watch;

    Fidelity(PgServer pg, EmbeddedConnectCluster connect, TopicWatch watch) {
        this.pg = pg;
        this.connect = connect;
        this.watch = watch;
    }

    List<String> run() throws Exception {
        pg.sql("postgres", DDL);
        pg.sql("postgres", "SELECT pg_create_logical_replication_slot('fid_debezium', 'pgoutput');"
                + " SELECT pg_create_logical_replication_slot('fid_pgrepl', 'pgoutput')");
        pg.sql("postgres", ROWS);
        pg.sql("postgres", ROWS_FULL);
        List<String> diffs = new ArrayList<>();
        Map<String, List<Rec>> dbz = stream(Connectors.DEBEZIUM, true);
        Map<String, List<Rec>> pgr = stream(Connectors.PGREPL, true);
        for (String table : TABLES) compareAll(table, dbz.get(table), pgr.get(table), diffs);
        // The extra table's values themselves, so that agreement (e.g. on -0.0) can be read too.
        for (int i = 0; i < Math.min(dbz.get("fid_more").size(), pgr.get("fid_more").size()); i++) {
            System.out.println("fid_more record " + i + " after: debezium " + dbz.get("fid_more").get(i).value().path("payload").path("after")
                    + "\n                       pgrepl   " + pgr.get("fid_more").get(i).value().path("payload").path("after"));
        }
        // The source blocks of one table, and Debezium's source schema, to read what the lines below count.
        for (int i = 0; i < Math.min(dbz.get("fid_full").size(), pgr.get("fid_full").size()); i++) {
            System.out.println("fid_full record " + i + " source: debezium " + dbz.get("fid_full").get(i).value().path("payload").path("source")
                    + "\n                        pgrepl   " + pgr.get("fid_full").get(i).value().path("payload").path("source"));
        }
        System.out.println("debezium source schema: " + blockSchema(dbz.get("fid_full").get(0).value(), "source"));
        // Initial snapshots of the tables as the stream left them.
        Map<String, List<Rec>> dbzSnap = stream(Connectors.DEBEZIUM, false);
        Map<String, List<Rec>> pgrSnap = stream(Connectors.PGREPL, false);
        for (String table : TABLES) {
            compareAll("snapshot " + table, byId(dbzSnap.get(table)), byId(pgrSnap.get(table)), diffs);
        }
        System.out.println("fidelity: " + diffs.size() + " differences");
        diffs.forEach(d -> System.out.println("  " + d));
        return diffs;
    }

    /**
     * The connector streams the workload ({@code streamOnly}, from the slot made before the writes) or
     * snapshots the tables (a slot of its own); its topics' records, tombstones included, by table.
     */
    private Map<String, List<Rec>> stream(String connector, boolean streamOnly) throws Exception {
        String name = (streamOnly ? "fid_" : "fsn_") + connector;
        connect.configureConnector(name, Connectors.config(connector, pg, name, name, "fid_pub", "public\\.fid_.*", streamOnly));
        long start = System.nanoTime();
        if (streamOnly) {
            watch.await(name + ".public.fid_end", 1, start, Duration.ofSeconds(300), 100, 1000);
        } else {
            // Tables are read in no fixed order: each topic holds as many reads as its table has rows.
            for (String table : TABLES) watch.await(name + ".public." + table, rows(table), start, Duration.ofSeconds(300), 100, 0);
            Thread.sleep(1000);
        }
        Map<String, List<Rec>> out = new LinkedHashMap<>();
        for (String table : TABLES) out.put(table, read(name + ".public." + table));
        connect.deleteConnector(name);
        ConnectSideBySide.dropSlot(pg, name);
        return out;
    }

    private long rows(String table) throws Exception {
        try (PgConnection c = PgConnection.connect(pg.url(pg.superuser(), "postgres")).toCompletableFuture()
                .get(30, TimeUnit.SECONDS)) {
            return Long.parseLong(c.query("SELECT count(*) FROM " + table).toCompletableFuture().get(30, TimeUnit.SECONDS)
                    .rows().get(0).get(0));
        }
    }

    /** Every record of a single-partition topic, key and value parsed, in offset order. */
    private List<Rec> read(String topic) {
        return watch.read(topic, (key, value) -> new Rec(TopicWatch.json(key), value));
    }

    /** Snapshot reads in id order (the two connectors need not read a table in the same order). */
    private static List<Rec> byId(List<Rec> recs) {
        return recs.stream().sorted(Comparator.comparingLong(r -> r.value().path("payload").path("after").path("id").asLong()))
                .toList();
    }

    /** Keys and values of two topics, record by record. */
    static void compareAll(String table, List<Rec> dbz, List<Rec> pgr, List<String> diffs) {
        compare(table, dbz.stream().map(Rec::value).toList(), pgr.stream().map(Rec::value).toList(), diffs);
        compareKeys(table, dbz.stream().map(Rec::key).toList(), pgr.stream().map(Rec::key).toList(), diffs);
    }

    static void compare(String table, List<JsonNode> dbz, List<JsonNode> pgr, List<String> diffs) {
        if (dbz.size() != pgr.size()) {
            diffs.add(table + ": " + dbz.size() + " records from Debezium, " + pgr.size() + " from pgrepl; ops "
                    + ops(dbz) + " vs " + ops(pgr));
        }
        boolean schemasCompared = false;
        // source field -> {records that differ, records compared}, and the first difference.
        Map<String, int[]> sourceCounts = new LinkedHashMap<>();
        Map<String, String> sourceFirst = new LinkedHashMap<>();
        for (int i = 0; i < Math.min(dbz.size(), pgr.size()); i++) {
            JsonNode d = dbz.get(i);
            JsonNode p = pgr.get(i);
            String where = table + " record " + i;
            if (d.isNull() || p.isNull()) {
                if (d.isNull() != p.isNull()) diffs.add(where + ": tombstone on one side only");
                continue;
            }
            JsonNode dp = d.path("payload");
            JsonNode pp = p.path("payload");
            String op = dp.path("op").asText();
            if (!op.equals(pp.path("op").asText())) diffs.add(where + ": op " + op + " vs " + pp.path("op").asText());
            JsonNode row = dp.path("after").isObject() ? dp.path("after") : dp.path("before");
            where += " (op " + op + ", id " + row.path("id") + ")";
            compareBlock(where, "after", " value ", dp, pp, diffs);
            compareBlock(where, "before", " before ", dp, pp, diffs);
            for (String f : fieldNames(dp, pp)) {
                if (!ENVELOPE_NOT_VALUES.contains(f) && !dp.path(f).equals(pp.path(f))) {
                    diffs.add(where + " envelope " + f + ": debezium " + dp.get(f) + ", pgrepl " + pp.get(f));
                }
            }
            JsonNode ds = dp.path("source");
            JsonNode ps = pp.path("source");
            for (String f : fieldNames(ds, ps)) {
                // By construction, or absent on one side (the source schema's comparison lists those).
                if (SOURCE_BY_CONSTRUCTION.contains(f) || !ds.has(f) || !ps.has(f)) continue;
                int[] n = sourceCounts.computeIfAbsent(f, k -> new int[2]);
                n[1]++;
                if (!ds.path(f).equals(ps.path(f)) && n[0]++ == 0) {
                    sourceFirst.put(f, "record " + i + " op " + op + ": debezium " + ds.get(f) + ", pgrepl " + ps.get(f));
                }
            }
            if (!schemasCompared) {
                schemasCompared = true;
                compareSchemas(table + " schema", blockSchema(d, "after"), blockSchema(p, "after"), diffs);
                compareSchemas(table + " before schema", blockSchema(d, "before"), blockSchema(p, "before"), diffs);
                compareSchemas(table + " source schema", blockSchema(d, "source"), blockSchema(p, "source"), diffs);
                compareSchemas(table + " envelope schema", structSchema(d.path("schema")), structSchema(p.path("schema")), diffs);
            }
        }
        sourceCounts.forEach((f, n) -> {
            if (n[0] > 0) {
                diffs.add(table + " source." + f + ": differs in " + n[0] + " of " + n[1] + " records (first: "
                        + sourceFirst.get(f) + ")");
            }
        });
    }

    /** The {@code before} or {@code after} struct of both records: null on one side only, or each field's value. */
    private static void compareBlock(String where, String block, String label, JsonNode dp, JsonNode pp, List<String> diffs) {
        JsonNode db = dp.path(block);
        JsonNode pb = pp.path(block);
        if (db.isNull() || pb.isNull()) {
            if (db.isNull() != pb.isNull()) diffs.add(where + ": " + block + " is null on one side only");
            return;
        }
        for (String f : fieldNames(db, pb)) {
            if (!db.path(f).equals(pb.path(f))) diffs.add(where + label + f + ": debezium " + db.get(f) + ", pgrepl " + pb.get(f));
        }
    }

    /** Keys record by record (tombstones included), and the key schema once. */
    static void compareKeys(String table, List<JsonNode> dbz, List<JsonNode> pgr, List<String> diffs) {
        boolean schemaCompared = false;
        for (int i = 0; i < Math.min(dbz.size(), pgr.size()); i++) {
            JsonNode d = dbz.get(i);
            JsonNode p = pgr.get(i);
            if (!d.path("payload").equals(p.path("payload"))) {
                diffs.add(table + " record " + i + " key: debezium " + d.path("payload") + ", pgrepl " + p.path("payload"));
            }
            if (!schemaCompared && !d.isNull() && !p.isNull()) {
                schemaCompared = true;
                compareSchemas(table + " key schema", structSchema(d.path("schema")), structSchema(p.path("schema")), diffs);
            }
        }
    }

    private static void compareSchemas(String label, Map<String, JsonNode> d, Map<String, JsonNode> p, List<String> diffs) {
        TreeSet<String> fields = new TreeSet<>(d.keySet());
        fields.addAll(p.keySet());
        for (String f : fields) {
            JsonNode ds = d.get(f);
            JsonNode ps = p.get(f);
            if (ds == null || ps == null) {
                diffs.add(label + " " + f + ": only in " + (ds == null ? "pgrepl" : "debezium"));
            } else if (!ds.equals(ps)) {
                diffs.add(label + " " + f + ": debezium " + ds + ", pgrepl " + ps);
            }
        }
    }

    /** The fields of the envelope's struct field {@code block}, by name, each without its {@code field} key. */
    private static Map<String, JsonNode> blockSchema(JsonNode record, String block) {
        for (JsonNode f : record.path("schema").path("fields")) {
            if (!block.equals(f.path("field").asText())) continue;
            Map<String, JsonNode> fields = structSchema(f);
            fields.remove("(struct)"); // the struct itself is an envelope field, compared there
            return fields;
        }
        return Map.of();
    }

    /**
     * A struct schema flattened one level: {@code (struct)} for its own attributes (name, optional,
     * version), then each field without its {@code field} key and without nested {@code fields}
     * (compared on their own). The topic prefix in a schema name becomes {@code <prefix>}.
     */
    private static Map<String, JsonNode> structSchema(JsonNode struct) {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        if (!struct.isObject()) return out;
        ObjectNode top = struct.deepCopy();
        top.remove("fields");
        out.put("(struct)", normalName(top));
        for (JsonNode col : struct.path("fields")) {
            ObjectNode c = col.deepCopy();
            String name = c.remove("field").asText();
            if (c.has("fields")) c.put("fields", "(" + c.get("fields").size() + " fields, compared apart)");
            out.put(name, normalName(c));
        }
        return out;
    }

    /** {@code <prefix>.<schema>.<table>.(Envelope|Value|Key)}: the prefix differs by construction. */
    private static ObjectNode normalName(ObjectNode n) {
        if (n.has("name")) n.put("name", n.get("name").asText().replaceFirst("^[^.]+\\.(?=[^.]+\\.[^.]+\\.(Envelope|Value|Key)$)", "<prefix>."));
        return n;
    }

    private static TreeSet<String> fieldNames(JsonNode a, JsonNode b) {
        TreeSet<String> names = new TreeSet<>();
        for (Iterator<String> i = a.fieldNames(); i.hasNext(); ) names.add(i.next());
        for (Iterator<String> i = b.fieldNames(); i.hasNext(); ) names.add(i.next());
        return names;
    }

    private static String ops(List<JsonNode> records) {
        StringBuilder b = new StringBuilder();
        for (JsonNode r : records) b.append(r.isNull() ? "~" : r.path("payload").path("op").asText());
        return b.toString();
    }
}
