package io.pgrepl.it.incremental;

import static io.pgrepl.it.incremental.IncSupport.waitUntil;
import static io.pgrepl.it.snapshot.SnapshotSupport.await;
import static io.pgrepl.it.snapshot.SnapshotSupport.config;
import static io.pgrepl.it.snapshot.SnapshotSupport.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.snapshot.InitialSnapshot;
import io.pgrepl.client.snapshot.InitialSnapshotMode;
import io.pgrepl.client.snapshot.SnapshotHandler;
import io.pgrepl.client.snapshot.SnapshotOptions;
import io.pgrepl.client.snapshot.incremental.IncrementalOptions;
import io.pgrepl.client.snapshot.incremental.IncrementalSnapshots;
import io.pgrepl.client.snapshot.incremental.SnapshotReadHandler;
import io.pgrepl.client.snapshot.incremental.TableProgress;
import io.pgrepl.client.snapshot.incremental.WatermarkMode;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.codec.pgoutput.TupleView;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgServerConfig;
import io.pgrepl.testkit.junit.PgTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * The parity rule on the library's face: a row read by the initial copy (exported snapshot) and by
 * an incremental snapshot's chunk carries the relation the stream's Relation message describes
 * (types, typmods, replica identity and its flags) and decodes to the same values as the same row
 * streamed. Rows 1 to 3 exist before the slot; rows 101 to 103 are inserted afterwards with the
 * same values, so they stream. Typmod'd types, arrays, a domain over a typmod'd type, an enum, a
 * composite, a range, NULLs, infinities, a TOASTed value, and names that need quoting.
 */
@PgTest
class ReadStreamParityTest {
    private static final String SCHEMA = "\"Sales.Q1\"";
    private static final String KEYED = SCHEMA + ".\"Order-Items\"";
    private static final String FULL = SCHEMA + ".\"Full Ident\"";

    /** One row as seen on one path: the relation it came with and each column's decoded value. */
    record Seen(RelationInfo relation, List<Object> values) {}

    static final class Paths implements SnapshotHandler, SnapshotReadHandler {
        final Map<String, Seen> copied = new ConcurrentHashMap<>();
        final Map<String, Seen> chunked = new ConcurrentHashMap<>();
        final Map<String, Seen> streamed = new ConcurrentHashMap<>();
        final Map<String, TableProgress> progress = new ConcurrentHashMap<>();

        private static String key(TupleView t) {
            return t.relation().name() + "/" + t.text(0);
        }

        private static Seen seen(TupleView t) {
            List<Object> values = new ArrayList<>();
            for (int i = 0; i < t.columnCount(); i++) values.add(t.isNull(i) ? null : t.decode(i));
            return new Seen(t.relation(), values);
        }

        @Override
        public void onRead(TupleView row, long consistentPoint) {
            copied.put(key(row), seen(row));
        }

        @Override
        public void onSnapshotRead(TupleView row, long position) {
            chunked.put(key(row), seen(row));
        }

        @Override
        public void onInsert(InsertMessage m) {
            streamed.put(key(m.newTuple()), seen(m.newTuple()));
        }

        @Override
        public void onSnapshotProgress(TableProgress p) {
            progress.put(p.table(), p);
        }
    }

    @Test
    void readsAreStreamedRowsOn18(@PgServerConfig(version = 18) PgServer s) throws Exception {
        run(s);
    }

    @Test
    void readsAreStreamedRowsOn10(@PgServerConfig(version = 10) PgServer s) throws Exception {
        run(s);
    }

    private static void run(PgServer s) throws Exception {
        String columns = "\"Id\" int PRIMARY KEY, n102 numeric(10,2), n50 numeric(5,0), n124 numeric(12,4), nfree numeric,"
                + " ts0 timestamp(0), ts3 timestamp(3), tstz3 timestamptz(3), tm2 time(2), tmtz1 timetz(1),"
                + " iv interval, ivs interval second(2), d date, b1 bit(1), b8 bit(8), vb16 varbit(16),"
                + " vc varchar(10), ch char(4), m money, j json, jb jsonb, u uuid, f4 real, f8 double precision,"
                + " bo boolean, by bytea, na numeric(10,2)[], tsa timestamp(3)[], mood " + SCHEMA + ".\"Mood\","
                + " dom " + SCHEMA + ".money83, pair " + SCHEMA + ".pair, r int4range, \"Mixed Case\" text, big text";
        String row1 = "1, 12345678.91, 12345, 12345678.9123, 1.5e-30, '2024-02-29 23:59:59', '2024-02-29 23:59:59.123',"
                + " '2024-02-29 23:59:59.123+05:30', '23:59:59.99', '12:00:00.1+02', '1 year 2 mons 3 days 04:05:06.789',"
                + " '12.34 seconds', '2024-02-29', B'1', B'10100101', B'1010', 'héllo wörl', 'ab', 1234.56,"
                + " '{\"a\": [1, 2.50]}', '{\"b\": {\"c\": null}}', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', 1.5, -2.25e-300,"
                + " true, '\\x00ff10', '{1.50,NULL,-3.25}', '{\"2024-01-01 00:00:00.123\",NULL}', 'happy', 3.141,"
                + " ROW(7, 'seven'), '[1,10)', 'Quoted \"name\" value', (SELECT string_agg(md5(g::text), '') FROM generate_series(1, 400) g)";
        String row2 = "2" + ", NULL".repeat(33);
        String row3 = "3, -0.01, 0, 0.0001, 'NaN', 'infinity', '-infinity', 'infinity', '00:00:00', '00:00:00+00', '-1 days',"
                + " '0 seconds', '-infinity', B'0', B'00000000', B'', '', '    ', -0.01, 'null', '[]', '00000000-0000-0000-0000-000000000000',"
                + " 'NaN', 'Infinity', false, '\\x', '{}', '{}', 'sad', -0.001, ROW(NULL, NULL), 'empty', '', ''";
        s.sql("postgres", "DROP PUBLICATION IF EXISTS parity_pub; DROP SCHEMA IF EXISTS " + SCHEMA + " CASCADE;"
                + " CREATE SCHEMA " + SCHEMA + "; CREATE TYPE " + SCHEMA + ".\"Mood\" AS ENUM ('sad', 'ok', 'happy');"
                + " CREATE DOMAIN " + SCHEMA + ".money83 AS numeric(8,3); CREATE TYPE " + SCHEMA + ".pair AS (n int, t text);"
                + " CREATE TABLE " + KEYED + " (" + columns + "); CREATE TABLE " + FULL + " (" + columns + ");"
                + " ALTER TABLE " + FULL + " REPLICA IDENTITY FULL;"
                + " INSERT INTO " + KEYED + " VALUES (" + row1 + "), (" + row2 + "), (" + row3 + ");"
                + " INSERT INTO " + FULL + " SELECT * FROM " + KEYED + ";"
                + " CREATE PUBLICATION parity_pub FOR TABLE " + KEYED + ", " + FULL);
        Paths p = new Paths();
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE); PgConnection sql = connect(s, ReplicationMode.NONE)) {
            LogicalReplicationOptions stream = LogicalReplicationOptions.builder("parity_slot").publications("parity_pub")
                    .autoAcknowledge(true).statusInterval(Duration.ofMillis(200)).build();
            SnapshotOptions options = SnapshotOptions.of(stream).withSlot(SnapshotOptions.of(stream).slot().withTemporary(true));
            IncrementalSnapshots inc = IncrementalSnapshots.create(IncrementalOptions.of(config(s, ReplicationMode.NONE))
                    .withWatermarks(WatermarkMode.READ_ONLY), p);
            InitialSnapshot.Started st = await(InitialSnapshot.start(repl, InitialSnapshotMode.INITIAL, options, p, inc));
            // Spelled as a user would, with the quotes the names need.
            inc.execute(KEYED, FULL);
            try {
                waitUntil("both tables read", Duration.ofSeconds(60), () -> completed(p, "Order-Items") && completed(p, "Full Ident"));
            } catch (AssertionError e) {
                throw new AssertionError(e.getMessage() + "; progress: " + p.progress, e);
            }
            await(sql.query("INSERT INTO " + KEYED + " SELECT \"Id\" + 100, n102, n50, n124, nfree, ts0, ts3, tstz3, tm2, tmtz1, iv, ivs, d,"
                    + " b1, b8, vb16, vc, ch, m, j, jb, u, f4, f8, bo, by, na, tsa, mood, dom, pair, r, \"Mixed Case\", big FROM " + KEYED));
            await(sql.query("INSERT INTO " + FULL + " SELECT * FROM " + KEYED + " WHERE \"Id\" > 100"));
            waitUntil("the streamed inserts", Duration.ofSeconds(60), () -> List.of(101, 102, 103).stream()
                    .allMatch(id -> p.streamed.containsKey("Order-Items/" + id) && p.streamed.containsKey("Full Ident/" + id)));
            await(st.stream().stop());
            inc.close();
        }
        for (String table : List.of("Order-Items", "Full Ident")) {
            for (int id = 1; id <= 3; id++) {
                Seen streamed = p.streamed.get(table + "/" + (id + 100));
                for (Map.Entry<String, Map<String, Seen>> path : Map.of("copy", p.copied, "chunk", p.chunked).entrySet()) {
                    Seen read = path.getValue().get(table + "/" + id);
                    String what = path.getKey() + " read of " + table + " row " + id;
                    assertTrue(read != null && streamed != null, what + " and its streamed twin both arrived");
                    assertEquals(streamed.relation().schema(), read.relation().schema(), what);
                    assertEquals(streamed.relation().name(), read.relation().name(), what);
                    assertEquals(streamed.relation().replicaIdentity(), read.relation().replicaIdentity(), what + ": replica identity");
                    assertEquals(streamed.relation().columns(), read.relation().columns(), what + ": columns (names, types, typmods, key flags)");
                    for (int c = 1; c < streamed.values().size(); c++) {
                        Object a = streamed.values().get(c);
                        Object b = read.values().get(c);
                        assertTrue(Arrays.deepEquals(new Object[] {a}, new Object[] {b}),
                                what + ": column " + streamed.relation().columns().get(c).name() + " read " + b + ", streamed " + a);
                    }
                }
            }
        }
        // The key flags are the server's, whatever the chunks walk by: the primary key, or every column under FULL.
        assertEquals(List.of("Id"), p.chunked.get("Order-Items/1").relation().columns().stream().filter(c -> c.isKey()).map(c -> c.name()).toList());
        assertTrue(p.chunked.get("Full Ident/1").relation().columns().stream().allMatch(c -> c.isKey()));
    }

    private static boolean completed(Paths p, String table) {
        TableProgress t = p.progress.values().stream().filter(x -> x.table().contains(table)).findFirst().orElse(null);
        if (t != null && t.status() == TableProgress.Status.FAILED) throw new AssertionError(table + " failed: " + t.error());
        return t != null && t.status() == TableProgress.Status.COMPLETED;
    }
}
