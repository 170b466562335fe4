package io.pgrepl.it.snapshot;

import static io.pgrepl.it.snapshot.SnapshotSupport.await;
import static io.pgrepl.it.snapshot.SnapshotSupport.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.snapshot.InitialSnapshot;
import io.pgrepl.client.snapshot.InitialSnapshotMode;
import io.pgrepl.client.snapshot.SnapshotOptions;
import io.pgrepl.client.snapshot.SnapshotWarning;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalStreamHandler;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.codec.pgoutput.TupleView;
import io.pgrepl.it.values.ValueCases;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgServerConfig;
import io.pgrepl.testkit.junit.PgTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * What gets copied, on the versions where it matters: column lists and row filters (15+), partition
 * roots and leaves, generated columns (18), an empty table, a table without columns, tables
 * without a replica identity; and that every typed value read equals the value pgoutput streams
 * for the same row, in text and in binary.
 */
@PgTest
class SnapshotFeaturesTest {

    private static SnapshotOptions options(String slot, String pub, boolean binary) {
        LogicalReplicationOptions stream = LogicalReplicationOptions.builder(slot).publications(pub)
                .binary(binary ? Boolean.TRUE : null).statusInterval(Duration.ofMillis(200)).build();
        return SnapshotOptions.of(stream).withWorkers(2).withSlot(SnapshotOptions.of(stream).slot().withTemporary(true));
    }

    private static Collector copy(PgServer s, String slot, String pub) throws Exception {
        Collector c = new Collector();
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            await(InitialSnapshot.copy(repl, options(slot, pub, false), c));
        }
        assertNotNull(c.end, "onEnd ran");
        return c;
    }

    @Test
    void columnListsAndRowFiltersOn15(@PgServerConfig(version = 15) PgServer s) throws Exception {
        columnListsAndRowFilters(s);
    }

    @Test
    void columnListsAndRowFiltersOn18(@PgServerConfig(version = 18) PgServer s) throws Exception {
        columnListsAndRowFilters(s);
    }

    private static void columnListsAndRowFilters(PgServer s) throws Exception {
        s.sql("postgres", "DROP PUBLICATION IF EXISTS f_pub, f_pub2; DROP TABLE IF EXISTS f_cols, f_rows;"
                + " CREATE TABLE f_cols (id int PRIMARY KEY, a text, secret text, b int);"
                + " INSERT INTO f_cols VALUES (1, 'x', 's1', 10), (2, NULL, 's2', 20);"
                + " CREATE TABLE f_rows (id int PRIMARY KEY, v int);"
                + " INSERT INTO f_rows SELECT g, g FROM generate_series(1, 10) g;"
                + " CREATE PUBLICATION f_pub FOR TABLE f_cols (id, b, a), f_rows WHERE (v > 7);"
                + " CREATE PUBLICATION f_pub2 FOR TABLE f_rows WHERE (v < 2)");
        Collector c = copy(s, "f_slot", "f_pub");
        assertEquals(List.of("[id=1, a=x, b=10]", "[id=2, a=NULL, b=20]"), c.sorted("public.f_cols"), "columns in table order, no secret");
        assertEquals(List.of("[id=10, v=10]", "[id=8, v=8]", "[id=9, v=9]"), c.sorted("public.f_rows"));
        // Two publications: their row filters are ORed, as pgoutput does.
        LogicalReplicationOptions both = LogicalReplicationOptions.builder("f_slot2").publications("f_pub", "f_pub2").build();
        Collector c2 = new Collector();
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            await(InitialSnapshot.copy(repl, SnapshotOptions.of(both).withSlot(SnapshotOptions.of(both).slot().withTemporary(true)), c2));
        }
        assertEquals(List.of("[id=1, v=1]", "[id=10, v=10]", "[id=8, v=8]", "[id=9, v=9]"), c2.sorted("public.f_rows"));
    }

    @Test
    void partitionsGeneratedEmptyAndColumnless(@PgServerConfig(version = 18) PgServer s) throws Exception {
        s.sql("postgres", "DROP PUBLICATION IF EXISTS p_root, p_leaves; DROP TABLE IF EXISTS p, g, e, nocols, noid;"
                + " CREATE TABLE p (id int PRIMARY KEY, v text) PARTITION BY LIST (id);"
                + " CREATE TABLE p_a PARTITION OF p FOR VALUES IN (1, 2); CREATE TABLE p_b PARTITION OF p FOR VALUES IN (3);"
                + " INSERT INTO p VALUES (1, 'a'), (2, 'b'), (3, 'c');"
                + " CREATE TABLE g (id int PRIMARY KEY, x int, y int GENERATED ALWAYS AS (x * 2) STORED);"
                + " INSERT INTO g (id, x) VALUES (1, 21);"
                + " CREATE TABLE e (id int PRIMARY KEY);"
                + " CREATE TABLE nocols (); INSERT INTO nocols DEFAULT VALUES; INSERT INTO nocols DEFAULT VALUES;"
                + " CREATE TABLE noid (v text); INSERT INTO noid VALUES ('k');"
                + " ALTER TABLE g DROP COLUMN IF EXISTS gone;"
                + " CREATE PUBLICATION p_root FOR TABLE p, g, e, nocols, noid WITH (publish_via_partition_root = true, publish_generated_columns = stored);"
                + " CREATE PUBLICATION p_leaves FOR TABLE p, g WITH (publish_via_partition_root = false)");
        Collector root = copy(s, "p_slot", "p_root");
        assertEquals(List.of("[id=1, v=a]", "[id=2, v=b]", "[id=3, v=c]"), root.sorted("public.p"), "through the root");
        assertEquals(List.of("[id=1, x=21, y=42]"), root.sorted("public.g"), "generated column published");
        assertEquals(List.of(), root.sorted("public.e"));
        assertEquals(List.of("[]", "[]"), root.sorted("public.nocols"));
        assertTrue(root.end.tables().containsAll(List.of("public.p", "public.g", "public.e", "public.nocols", "public.noid")));
        assertEquals(List.of(new SnapshotWarning(SnapshotWarning.Kind.NO_REPLICA_IDENTITY, "public.noid",
                        "table public.noid has no replica identity, so the server refuses its updates and deletes while a"
                                + " publication publishes them; give it one: a primary key, or ALTER TABLE \"public\".\"noid\" REPLICA"
                                + " IDENTITY USING INDEX name (a unique, non-partial, non-deferrable index on NOT NULL columns;"
                                + " no extra WAL), or ALTER TABLE \"public\".\"noid\" REPLICA IDENTITY FULL (every update and delete"
                                + " writes the whole old row to the WAL)"),
                new SnapshotWarning(SnapshotWarning.Kind.NO_REPLICA_IDENTITY, "public.nocols",
                        "table public.nocols has no replica identity, so the server refuses its updates and deletes while a"
                                + " publication publishes them; give it one: a primary key, or ALTER TABLE \"public\".\"nocols\" REPLICA"
                                + " IDENTITY USING INDEX name (a unique, non-partial, non-deferrable index on NOT NULL columns;"
                                + " no extra WAL), or ALTER TABLE \"public\".\"nocols\" REPLICA IDENTITY FULL (every update and delete"
                                + " writes the whole old row to the WAL)")).stream()
                .sorted(java.util.Comparator.comparing(SnapshotWarning::table)).toList(),
                root.warnings.stream().sorted(java.util.Comparator.comparing(SnapshotWarning::table)).toList());
        Collector leaves = copy(s, "p_slot2", "p_leaves");
        assertEquals(List.of("[id=1, v=a]", "[id=2, v=b]"), leaves.sorted("public.p_a"), "leaf by leaf");
        assertEquals(List.of("[id=3, v=c]"), leaves.sorted("public.p_b"));
        assertEquals(List.of("[id=1, x=21]"), leaves.sorted("public.g"), "generated column not published by default");
    }

    @Test
    void readsEqualStreamedInsertsText(@PgServerConfig(version = 18) PgServer s) throws Exception {
        readsEqualStreamedInserts(s, false);
    }

    @Test
    void readsEqualStreamedInsertsBinary(@PgServerConfig(version = 18) PgServer s) throws Exception {
        readsEqualStreamedInserts(s, true);
    }

    /**
     * Row 1 of every typed value exists before the snapshot, row 2 (same values) is inserted after:
     * the read of row 1 and the streamed insert of row 2 must carry the same bytes per column.
     */
    private static void readsEqualStreamedInserts(PgServer s, boolean binary) throws Exception {
        String table = binary ? "tv_b" : "tv_t";
        StringBuilder create = new StringBuilder("CREATE TABLE " + table + " AS SELECT 1 AS id");
        List<String> cols = new ArrayList<>();
        int n = 0;
        for (ValueCases.Case c : ValueCases.all()) {
            if (c.minMajor() > s.majorVersion() || !c.setup().isEmpty()) continue;
            create.append(", (").append(c.sql()).append(") AS c").append(n);
            cols.add("c" + n++);
        }
        create.append(", E'tab\\there\\nnew\\\\line' AS esc, NULL::text AS nul");
        s.sql("postgres", "DROP PUBLICATION IF EXISTS " + table + "_pub; DROP TABLE IF EXISTS " + table + "; " + create
                + "; ALTER TABLE " + table + " ADD PRIMARY KEY (id); CREATE PUBLICATION " + table + "_pub FOR TABLE " + table);
        Collector reads = new Collector();
        Map<String, String> streamed = new ConcurrentHashMap<>();
        LogicalStreamHandler h = new LogicalStreamHandler() {
            @Override
            public void onInsert(InsertMessage m) {
                TupleView t = m.newTuple();
                for (int i = 0; i < t.columnCount(); i++) {
                    streamed.put(t.column(i).name(), t.isNull(i) ? "NULL" : SnapshotSupport.hex(t.bytes(i)) + (t.isBinary(i) ? "b" : "t"));
                }
            }
        };
        Map<String, String> read = new ConcurrentHashMap<>();
        Collector readHex = new Collector() {
            @Override
            public void onRead(TupleView t, long lsn) {
                for (int i = 0; i < t.columnCount(); i++) {
                    read.put(t.column(i).name(), t.isNull(i) ? "NULL" : SnapshotSupport.hex(t.bytes(i)) + (t.isBinary(i) ? "b" : "t"));
                }
            }
        };
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE); PgConnection sql = connect(s, ReplicationMode.NONE)) {
            InitialSnapshot.Started st = await(InitialSnapshot.start(repl, InitialSnapshotMode.INITIAL, options(table + "_slot",
                    table + "_pub", binary), readHex, h));
            await(sql.query("INSERT INTO " + table + " SELECT 2, " + String.join(", ", cols) + ", esc, nul FROM " + table + " WHERE id = 1"));
            SnapshotSupport.waitUntil(() -> streamed.containsKey("nul"), Duration.ofSeconds(30), "the streamed insert");
            st.stream().stop();
        }
        assertEquals(cols.size() + 3, read.size());
        for (String c : read.keySet()) {
            if (c.equals("id")) continue;
            assertEquals(streamed.get(c), read.get(c), "column " + c);
        }
        assertTrue(read.get("c0").endsWith(binary ? "b" : "t"));
        assertEquals(0, reads.rows.size());
    }
}
