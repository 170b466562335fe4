package io.pgrepl.benchmarks.connect;

import com.fasterxml.jackson.databind.JsonNode;
import io.pgrepl.testkit.PgServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;

/**
 * The typed-values workload of kafka-connect's {@code EndToEndTest} (its {@code _types} table and
 * rows, the same updates, key change and delete), plus a table of types that suite leaves out (an
 * enum and an enum array, float4, signed zeros and infinities, timetz, timestamp(3), numeric(5,2)),
 * streamed by both connectors from two slots created before the writes. Both topics are read back
 * (the worker's JsonConverter, schemas enabled) and parsed with Jackson; record i of one topic is
 * compared with record i of the other: the operation, every {@code after} field's value, and once
 * per table every {@code after} field's schema. Returns one line per difference.
 */
final class Fidelity {
    /** EndToEndTest.TYPES_DDL's {@code _types} table and the end marker. */
    static final String DDL = """
            CREATE TABLE fid_types (id int PRIMARY KEY, i2 int2, i4 int4, i8 int8, b bool, f8 float8,
              n numeric(20,5), nv numeric, t text, vc varchar(60), bc char(5), by bytea, u uuid, j jsonb,
              d date, ts timestamp, tz timestamptz, tm time, iv interval, ai int4[], at text[]);
            CREATE TYPE fid_mood AS ENUM ('sad', 'ok', 'happy');
            CREATE TABLE fid_more (id int PRIMARY KEY, e fid_mood, ea fid_mood[], f4 float4, f8 float8,
              ttz timetz, ts3 timestamp(3), n2 numeric(5,2), tz0 timestamptz(0), i8a int8[]);
            CREATE TABLE fid_end (id int PRIMARY KEY);
            CREATE PUBLICATION fid_pub FOR TABLE fid_types, fid_more, fid_end;
            """;

    /** EndToEndTest.TYPES_ROWS, then its updates, key change and delete. */
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
            INSERT INTO fid_end VALUES (1);
            """;

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
        Map<String, List<JsonNode>> dbz = stream(Connectors.DEBEZIUM);
        Map<String, List<JsonNode>> pgr = stream(Connectors.PGREPL);
        List<String> diffs = new ArrayList<>();
        for (String table : List.of("fid_types", "fid_more")) compare(table, dbz.get(table), pgr.get(table), diffs);
        // The extra table's values themselves, so that agreement (e.g. on -0.0) can be read too.
        for (int i = 0; i < Math.min(dbz.get("fid_more").size(), pgr.get("fid_more").size()); i++) {
            System.out.println("fid_more record " + i + " after: debezium " + dbz.get("fid_more").get(i).path("payload").path("after")
                    + "\n                       pgrepl   " + pgr.get("fid_more").get(i).path("payload").path("after"));
        }
        System.out.println("fidelity: " + diffs.size() + " differences");
        diffs.forEach(d -> System.out.println("  " + d));
        return diffs;
    }

    /** The connector streams the workload; its topics' values, tombstones included, by table. */
    private Map<String, List<JsonNode>> stream(String connector) throws Exception {
        String name = "fid_" + connector;
        connect.configureConnector(name, Connectors.config(connector, pg, name, name, "fid_pub", "public\\.fid_.*", true));
        watch.await(name + ".public.fid_end", 1, System.nanoTime(), Duration.ofSeconds(300), 100, 1000);
        Map<String, List<JsonNode>> out = new LinkedHashMap<>();
        for (String table : List.of("fid_types", "fid_more")) out.put(table, watch.values(name + ".public." + table));
        connect.deleteConnector(name);
        ConnectSideBySide.dropSlot(pg, name);
        return out;
    }

    static void compare(String table, List<JsonNode> dbz, List<JsonNode> pgr, List<String> diffs) {
        if (dbz.size() != pgr.size()) {
            diffs.add(table + ": " + dbz.size() + " records from Debezium, " + pgr.size() + " from pgrepl; ops "
                    + ops(dbz) + " vs " + ops(pgr));
        }
        boolean schemasCompared = false;
        for (int i = 0; i < Math.min(dbz.size(), pgr.size()); i++) {
            JsonNode d = dbz.get(i);
            JsonNode p = pgr.get(i);
            String where = table + " record " + i;
            if (d.isNull() || p.isNull()) {
                if (d.isNull() != p.isNull()) diffs.add(where + ": tombstone on one side only");
                continue;
            }
            String op = d.path("payload").path("op").asText();
            if (!op.equals(p.path("payload").path("op").asText())) {
                diffs.add(where + ": op " + op + " vs " + p.path("payload").path("op").asText());
            }
            JsonNode da = d.path("payload").path("after");
            JsonNode pa = p.path("payload").path("after");
            where += " (op " + op + ", id " + da.path("id") + ")";
            if (da.isNull() || pa.isNull()) {
                if (da.isNull() != pa.isNull()) diffs.add(where + ": after is null on one side only");
                continue;
            }
            for (String f : fieldNames(da, pa)) {
                if (!da.path(f).equals(pa.path(f))) {
                    diffs.add(where + " value " + f + ": debezium " + da.get(f) + ", pgrepl " + pa.get(f));
                }
            }
            if (!schemasCompared) {
                schemasCompared = true;
                compareSchemas(table, afterSchema(d), afterSchema(p), diffs);
            }
        }
    }

    private static void compareSchemas(String table, Map<String, JsonNode> d, Map<String, JsonNode> p, List<String> diffs) {
        TreeSet<String> fields = new TreeSet<>(d.keySet());
        fields.addAll(p.keySet());
        for (String f : fields) {
            JsonNode ds = d.get(f);
            JsonNode ps = p.get(f);
            if (ds == null || ps == null) {
                diffs.add(table + " schema " + f + ": only in " + (ds == null ? "pgrepl" : "debezium"));
            } else if (!ds.equals(ps)) {
                diffs.add(table + " schema " + f + ": debezium " + ds + ", pgrepl " + ps);
            }
        }
    }

    /** The envelope's {@code after} struct's fields, by name, each without its {@code field} key. */
    private static Map<String, JsonNode> afterSchema(JsonNode record) {
        Map<String, JsonNode> out = new LinkedHashMap<>();
        for (JsonNode f : record.path("schema").path("fields")) {
            if (!"after".equals(f.path("field").asText())) continue;
            for (JsonNode col : f.path("fields")) {
                com.fasterxml.jackson.databind.node.ObjectNode c = col.deepCopy();
                out.put(c.remove("field").asText(), c);
            }
        }
        return out;
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
