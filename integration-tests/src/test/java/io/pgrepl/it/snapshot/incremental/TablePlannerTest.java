package io.pgrepl.it.snapshot.incremental;

import static io.pgrepl.it.connect.Await.await;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.QueryResult;
import io.pgrepl.client.Row;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.snapshot.SnapshotException;
import io.pgrepl.client.snapshot.incremental.KeyRange;
import io.pgrepl.client.snapshot.incremental.KeyedTable;
import io.pgrepl.client.snapshot.incremental.TablePlanner;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgServerConfig;
import io.pgrepl.testkit.junit.PgTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Plans real tables and walks them chunk by chunk with the generated SQL, comparing with what the
 * server itself returns for the whole table in key order. One server per major for the class.
 */
@PgTest
class TablePlannerTest {

    @Test
    void keysAndWalksOn10(@PgServerConfig(version = 10) PgServer s) throws Exception {
        keysAndWalks(s);
    }

    @Test
    void keysAndWalksOn18(@PgServerConfig(version = 18) PgServer s) throws Exception {
        keysAndWalks(s);
    }

    private static void keysAndWalks(PgServer s) throws Exception {
        s.sql("postgres", "DROP PUBLICATION IF EXISTS kw_pub; DROP TABLE IF EXISTS kw_pk, kw_comp, kw_ri, kw_none, kw_full, kw_out;"
                + " CREATE TABLE kw_pk (id bigint PRIMARY KEY, v text);"
                + " INSERT INTO kw_pk SELECT g * 3, md5(g::text) FROM generate_series(1, 2500) g;"
                // A composite key in a collation-dependent order, with quotes, backslashes and blanks in it.
                + " CREATE TABLE kw_comp (note text, region text, n int, PRIMARY KEY (region, n));"
                + " INSERT INTO kw_comp SELECT 'r', r, n FROM unnest(ARRAY['a''b', 'x\\y', '', ' ', 'Zed', 'zed', 'ä', 'a b', '$1$'])"
                + " AS r, generate_series(1, 40) n;"
                // The key pgoutput sends is the replica identity index, not the primary key.
                + " CREATE TABLE kw_ri (id int PRIMARY KEY, code text NOT NULL UNIQUE, v int);"
                + " INSERT INTO kw_ri SELECT g, 'c' || (1000 - g), g FROM generate_series(1, 300) g;"
                + " ALTER TABLE kw_ri REPLICA IDENTITY USING INDEX kw_ri_code_key;"
                + " CREATE TABLE kw_none (a int, b text NOT NULL UNIQUE); INSERT INTO kw_none SELECT g, 'b' || g FROM generate_series(1, 50) g;"
                + " CREATE TABLE kw_full (a int); ALTER TABLE kw_full REPLICA IDENTITY FULL;"
                + " CREATE TABLE kw_out (id int PRIMARY KEY);"
                + " CREATE PUBLICATION kw_pub FOR TABLE kw_pk, kw_comp, kw_ri, kw_none, kw_full");
        try (PgConnection c = connect(s)) {
            KeyedTable pk = await(TablePlanner.plan(c, List.of("kw_pub"), "public.kw_pk", null));
            assertEquals("public.kw_pk", pk.qualifiedName());
            assertEquals(List.of("id", "v"), names(pk.columns()));
            assertEquals("bigint", pk.columns().get(0).type());
            assertArrayEquals(new int[] {0}, pk.keyColumnIndexes());
            assertEquals(2, pk.publishedColumnCount());
            // Never analyzed: the estimate comes from the relation's size (2500 real rows).
            assertTrue(pk.estimatedRows() > 800 && pk.estimatedRows() < 7500, "size-based estimate " + pk.estimatedRows());
            assertEquals(serverOrder(c, "SELECT id FROM kw_pk ORDER BY id"), walk(c, pk, null, null, 7));
            s.sql("postgres", "ANALYZE kw_pk");
            assertEquals(2500, await(TablePlanner.plan(c, List.of("kw_pub"), "kw_pk", null)).estimatedRows(), "reltuples");

            KeyedTable comp = await(TablePlanner.plan(c, List.of("kw_pub"), "kw_comp", null));
            assertEquals(List.of("note", "region", "n"), names(comp.columns()));
            assertArrayEquals(new int[] {1, 2}, comp.keyColumnIndexes(), "key order (region, n), not attnum order");
            List<List<String>> all = serverOrder(c, "SELECT region, n FROM kw_comp ORDER BY region, n");
            assertEquals(360, all.size());
            for (int chunk : new int[] {1, 13, 40, 1000}) assertEquals(all, walk(c, comp, null, null, chunk), "chunk " + chunk);
            // An additional condition, and a walk between bounds (exclusive after, inclusive up to; prefixes allowed).
            KeyedTable filtered = await(TablePlanner.plan(c, List.of("kw_pub"), "kw_comp", "n % 7 = 0 AND region <> 'x\\y'"));
            assertEquals(serverOrder(c, "SELECT region, n FROM kw_comp WHERE n % 7 = 0 AND region <> 'x\\y'"
                    + " AND (region, n) > ('a''b', 14) AND region <= 'zed' ORDER BY region, n"),
                    walk(c, filtered, List.of("a'b", "14"), List.of("zed"), 3));

            KeyedTable ri = await(TablePlanner.plan(c, List.of("kw_pub"), "public.kw_ri", null));
            assertEquals(List.of("code"), names(ri.keyColumns()), "REPLICA IDENTITY USING INDEX beats the primary key");
            assertEquals(serverOrder(c, "SELECT code FROM kw_ri ORDER BY code"), walk(c, ri, null, null, 17));

            SnapshotException none = refused(TablePlanner.plan(c, List.of("kw_pub"), "kw_none", null));
            assertEquals("table public.kw_none has no primary key and its replica identity is default, so an incremental"
                    + " snapshot has no key to read it by in chunks: name a surrogate key (columns that are unique and not null)"
                    + " for it, or read it with the initial copy under the exported snapshot (the slot's snapshot at creation)",
                    none.getMessage());
            assertEquals("public.kw_none", none.table());
            assertTrue(refused(TablePlanner.plan(c, List.of("kw_pub"), "kw_full", null)).getMessage()
                    .startsWith("table public.kw_full has no primary key and its replica identity is full,"));
            KeyedTable surrogate = await(TablePlanner.plan(c, List.of("kw_pub"), "kw_none", null, List.of("b")));
            assertEquals(List.of("b"), names(surrogate.keyColumns()));
            assertEquals(serverOrder(c, "SELECT b FROM kw_none ORDER BY b"), walk(c, surrogate, null, null, 6));
            assertEquals("surrogate key column \"nope\" is not a column of table public.kw_none",
                    refused(TablePlanner.plan(c, List.of("kw_pub"), "kw_none", null, List.of("nope"))).getMessage());

            assertEquals("table public.kw_out is not in the publication kw_pub: add it to a publication the stream uses"
                    + " before snapshotting it", refused(TablePlanner.plan(c, List.of("kw_pub"), "kw_out", null)).getMessage());
            assertEquals("table public.kw_missing does not exist",
                    refused(TablePlanner.plan(c, List.of("kw_pub"), "public.kw_missing", null)).getMessage());
            assertEquals("cannot plan table kw_pk: additional condition has a ';' (one expression only) at offset 4",
                    refused(TablePlanner.plan(c, List.of("kw_pub"), "kw_pk", "true; DROP TABLE kw_pk")).getMessage());
        }
    }

    @Test
    void rangesCoverTheTableOn10(@PgServerConfig(version = 10) PgServer s) throws Exception {
        rangesCoverTheTable(s);
    }

    @Test
    void rangesCoverTheTableOn18(@PgServerConfig(version = 18) PgServer s) throws Exception {
        rangesCoverTheTable(s);
    }

    private static void rangesCoverTheTable(PgServer s) throws Exception {
        s.sql("postgres", "DROP PUBLICATION IF EXISTS rg_pub; DROP TABLE IF EXISTS rg_comp, rg_small;"
                + " CREATE TABLE rg_comp (a int, b int, v text, PRIMARY KEY (a, b)) WITH (autovacuum_enabled = false);"
                + " INSERT INTO rg_comp SELECT g / 10, g % 10, 'v' FROM generate_series(1, 40000) g;"
                + " CREATE TABLE rg_small (id int PRIMARY KEY); INSERT INTO rg_small SELECT generate_series(1, 100);"
                + " CREATE PUBLICATION rg_pub FOR TABLE rg_comp, rg_small");
        try (PgConnection c = connect(s)) {
            List<List<String>> all = serverOrder(c, "SELECT a, b FROM rg_comp ORDER BY a, b");
            KeyedTable t = await(TablePlanner.plan(c, List.of("rg_pub"), "rg_comp", null));
            // Not analyzed: no histogram, so the bounds come from a sample of whole keys.
            List<KeyRange> sampled = await(TablePlanner.ranges(c, t, 4, 1000));
            assertEquals(4, sampled.size(), sampled.toString());
            sampled.subList(0, 3).forEach(r -> assertEquals(2, r.upTo().size(), "a sampled bound is a whole key: " + r));
            assertEquals(all, walkRanges(c, t, sampled));

            s.sql("postgres", "ANALYZE rg_comp");
            t = await(TablePlanner.plan(c, List.of("rg_pub"), "rg_comp", null));
            List<KeyRange> histogram = await(TablePlanner.ranges(c, t, 4, 1000));
            assertEquals(4, histogram.size(), histogram.toString());
            histogram.subList(0, 3).forEach(r -> assertEquals(1, r.upTo().size(), "a histogram bound is the leading column: " + r));
            assertEquals(all, walkRanges(c, t, histogram));
            // Each range holds a fair share: the histogram is equi-depth.
            for (KeyRange r : histogram) {
                int rows = walk(c, t, r.after(), r.upTo(), 100_000).size();
                assertTrue(rows > 40000 / 4 / 2 && rows < 40000 / 4 * 2, rows + " rows in " + r);
            }

            KeyedTable small = await(TablePlanner.plan(c, List.of("rg_pub"), "rg_small", null));
            assertEquals(List.of(new KeyRange(null, null)), await(TablePlanner.ranges(c, small, 4)), "small table: one range");
            assertEquals(List.of(new KeyRange(null, null)), await(TablePlanner.ranges(c, t, 1, 1)));
        }
    }

    @Test
    void columnListsRowFiltersAndPartitionsOn18(@PgServerConfig(version = 18) PgServer s) throws Exception {
        s.sql("postgres", "DROP PUBLICATION IF EXISTS cl_pub, cl_pub2, cl_root_pub; DROP TABLE IF EXISTS cl_t, cl_root;"
                + " CREATE TABLE cl_t (id int PRIMARY KEY, secret text, b int, c text, g int GENERATED ALWAYS AS (b * 2) STORED);"
                + " INSERT INTO cl_t (id, secret, b, c) SELECT g, 's', g % 10, 'c' || g FROM generate_series(1, 500) g;"
                // Publishing inserts only, the column list may leave the key out: it is then selected last, to walk by.
                + " CREATE PUBLICATION cl_pub FOR TABLE cl_t (c, b) WHERE (b > 5) WITH (publish = 'insert');"
                + " CREATE PUBLICATION cl_pub2 FOR TABLE cl_t (b) WHERE (b = 0) WITH (publish = 'insert');"
                + " CREATE TABLE cl_root (k int, id int, v text, PRIMARY KEY (k, id)) PARTITION BY RANGE (k);"
                + " CREATE TABLE cl_root_1 PARTITION OF cl_root FOR VALUES FROM (0) TO (5);"
                + " CREATE TABLE cl_root_2 PARTITION OF cl_root FOR VALUES FROM (5) TO (10);"
                + " INSERT INTO cl_root SELECT g % 10, g, 'v' FROM generate_series(1, 30000) g;"
                + " CREATE PUBLICATION cl_root_pub FOR TABLE cl_root WITH (publish_via_partition_root = true)");
        try (PgConnection c = connect(s)) {
            KeyedTable t = await(TablePlanner.plan(c, List.of("cl_pub"), "cl_t", null));
            assertEquals(List.of("b", "c", "id"), names(t.columns()), "published columns in attnum order, then the key");
            assertEquals(2, t.publishedColumnCount());
            assertArrayEquals(new int[] {2}, t.keyColumnIndexes());
            assertEquals("(b > 5)", t.rowFilter());
            assertEquals(serverOrder(c, "SELECT id FROM cl_t WHERE b > 5 ORDER BY id"), walk(c, t, null, null, 9));
            List<List<String>> rows = rows(c, t.chunkSql(null, null, 3));
            assertEquals(List.of(List.of("6", "c6", "6"), List.of("7", "c7", "7"), List.of("8", "c8", "8")), rows);

            // Two publications: column lists united, row filters ORed, as pgoutput does.
            KeyedTable both = await(TablePlanner.plan(c, List.of("cl_pub", "cl_pub2"), "cl_t", "id < 100"));
            assertEquals(List.of("b", "c", "id"), names(both.columns()));
            assertEquals("((b > 5)) OR ((b = 0))", both.rowFilter());
            assertEquals(serverOrder(c, "SELECT id FROM cl_t WHERE (b > 5 OR b = 0) AND id < 100 ORDER BY id"), walk(c, both, null, null, 4));

            // A partitioned root published through itself: read without ONLY, estimated from its partitions.
            KeyedTable root = await(TablePlanner.plan(c, List.of("cl_root_pub"), "cl_root", null));
            assertTrue(root.partitionedRoot());
            assertTrue(root.estimatedRows() > 10000 && root.estimatedRows() < 90000, "estimate " + root.estimatedRows());
            List<List<String>> all = serverOrder(c, "SELECT k, id FROM cl_root ORDER BY k, id");
            assertEquals(all, walkRanges(c, root, await(TablePlanner.ranges(c, root, 3, 1000))));
            s.sql("postgres", "ANALYZE cl_root");
            List<KeyRange> ranges = await(TablePlanner.ranges(c, root, 3, 1000));
            assertEquals(3, ranges.size(), ranges.toString());
            assertEquals(all, walkRanges(c, root, ranges));
            assertNull(root.rowFilter());
        }
    }

    /** Walks one range chunk by chunk, each chunk after the last key read, until a chunk comes back short. */
    static List<List<String>> walk(PgConnection c, KeyedTable t, List<String> after, List<String> upTo, int chunk) throws Exception {
        List<List<String>> out = new ArrayList<>();
        List<String> last = after;
        while (true) {
            QueryResult r = await(c.query(t.chunkSql(last, upTo, chunk)));
            assertEquals(t.columns().size(), r.columns().size());
            for (Row row : r.rows()) {
                List<String> key = new ArrayList<>();
                for (int i : t.keyColumnIndexes()) key.add(row.get(i));
                out.add(key);
                last = key;
            }
            if (r.rows().size() < chunk) return out;
        }
    }

    static List<List<String>> walkRanges(PgConnection c, KeyedTable t, List<KeyRange> ranges) throws Exception {
        assertNull(ranges.get(0).after(), "the first range is open at the start");
        assertNull(ranges.get(ranges.size() - 1).upTo(), "the last range is open at the end");
        List<List<String>> out = new ArrayList<>();
        for (int i = 0; i < ranges.size(); i++) {
            if (i > 0) assertEquals(ranges.get(i - 1).upTo(), ranges.get(i).after(), "contiguous");
            out.addAll(walk(c, t, ranges.get(i).after(), ranges.get(i).upTo(), 997));
        }
        return out;
    }

    static List<List<String>> serverOrder(PgConnection c, String sql) throws Exception {
        return rows(c, sql);
    }

    static List<List<String>> rows(PgConnection c, String sql) throws Exception {
        List<List<String>> out = new ArrayList<>();
        for (Row row : await(c.query(sql)).rows()) {
            List<String> values = new ArrayList<>();
            for (int i = 0; i < row.size(); i++) values.add(row.get(i));
            out.add(values);
        }
        return out;
    }

    static List<String> names(List<KeyedTable.Column> columns) {
        return columns.stream().map(KeyedTable.Column::name).toList();
    }

    static SnapshotException refused(CompletionStage<?> stage) throws Exception {
        try {
            stage.toCompletableFuture().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return assertInstanceOf(SnapshotException.class, e.getCause());
        }
        throw new AssertionError("expected the plan to be refused");
    }

    static PgConnection connect(PgServer s) throws Exception {
        return await(PgConnection.connect(ConnectionConfig.builder().host(s.host()).port(s.port()).user(s.superuser().name())
                .password(s.superuser().password()).database("postgres").sslMode(SslMode.DISABLE)
                .connectTimeout(Duration.ofSeconds(30)).build()));
    }
}
