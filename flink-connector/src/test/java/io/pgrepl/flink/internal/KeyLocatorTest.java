package io.pgrepl.flink.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.Row;
import io.pgrepl.client.snapshot.incremental.KeyRange;
import io.pgrepl.client.snapshot.incremental.KeyedTable;
import io.pgrepl.client.snapshot.incremental.TablePlanner;
import io.pgrepl.flink.PgreplSource;
import io.pgrepl.flink.TableName;
import io.pgrepl.testkit.PgServer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The stream's key lookup against the snapshot's own SQL: for a composite key whose leading text
 * column has a collation other than the database's, pieces bounded by one-column histogram prefixes
 * and by whole keys, every key of the table is placed in the piece whose chunk SELECT (the client's
 * {@link KeyedTable#chunkSql}, what the snapshot ran) returns it.
 */
class KeyLocatorTest {
    private static PgServer pg;
    private static PgConnection c;

    @BeforeAll
    static void start() throws Exception {
        pg = PgServer.start(PgServer.builder().version(18).build());
        c = PgConnection.connect(ConnectionConfig.parse(pg.url(pg.superuser(), "postgres"))).toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stop() {
        if (c != null) c.close();
        if (pg != null) pg.close();
    }

    private static List<Row> q(String sql) throws Exception {
        return c.query(sql).toCompletableFuture().get(60, TimeUnit.SECONDS).rows();
    }

    @Test
    void keysLandInThePieceTheirChunkSqlReads() throws Exception {
        // A collation that orders differently from the database's default: ICU's root if the server has it, else "C".
        String dbCollate = q("SELECT datcollate FROM pg_database WHERE datname = current_database()").get(0).get(0);
        boolean icu = !q("SELECT 1 FROM pg_collation WHERE collname = 'und-x-icu'").isEmpty();
        String collation = icu ? "\"und-x-icu\"" : "\"C\"";
        System.out.printf("database collation %s, key column collation %s%n", dbCollate, collation);
        c.simpleQuery("CREATE TABLE \"Loc Keys\" (region text COLLATE " + collation + ", id int, v text, PRIMARY KEY (region, id));"
                + "INSERT INTO \"Loc Keys\" SELECT (ARRAY['a', 'B', 'b', 'Ä', 'z', 'é', 'É', '_x', 'Zz'])[1 + g % 9] || (g % 37), g, 'v'"
                + " FROM generate_series(1, 18000) g; ANALYZE \"Loc Keys\"; CREATE PUBLICATION loc_pub FOR TABLE \"Loc Keys\"")
                .toCompletableFuture().get(60, TimeUnit.SECONDS);
        KeyedTable k = TablePlanner.plan(c, List.of("loc_pub"), "public.\"Loc Keys\"", null).toCompletableFuture().get(30, TimeUnit.SECONDS);
        List<KeyRange> ranges = TablePlanner.ranges(c, k, 5, 100).toCompletableFuture().get(30, TimeUnit.SECONDS);
        assertTrue(ranges.size() > 2, "the planner made ranges: " + ranges);
        assertTrue(ranges.stream().anyMatch(r -> r.upTo() != null && r.upTo().size() == 1), "prefix bounds among " + ranges);

        // Pieces: each range, the first one cut once more at a whole key (as a piece of fetch.size rows ends).
        List<List<String>> bounds = new ArrayList<>();
        for (int i = 0; i < ranges.size(); i++) {
            KeyRange r = ranges.get(i);
            if (i == 0) {
                Row mid = q(k.chunkSql(r.after(), r.upTo(), 700).replace("SELECT ", "SELECT * FROM (SELECT ") + ") s ORDER BY 1 DESC, 2 DESC LIMIT 1").get(0);
                bounds.add(List.of(mid.get(0), mid.get(1)));
            }
            bounds.add(r.upTo());
        }
        List<Piece> pieces = new ArrayList<>();
        for (List<String> b : bounds) pieces.add(new Piece(b, "1:1:", 0));

        // Where the snapshot's own SQL puts each key.
        Map<List<String>, Integer> expected = new HashMap<>();
        List<String> after = null;
        for (int p = 0; p < bounds.size(); p++) {
            for (Row row : q(k.chunkSql(after, bounds.get(p), Integer.MAX_VALUE))) {
                Integer before = expected.put(List.of(row.get(0), row.get(1)), p);
                assertEquals(null, before, "a key read by two pieces");
            }
            after = bounds.get(p);
        }
        assertEquals(18_000, expected.size(), "the pieces cover the table once");

        Settings s = PgreplSource.builder().url(pg.url(pg.superuser(), "postgres")).slotName("unused").publication("loc_pub")
                .tables("public.\"Loc Keys\"").settings();
        List<List<String>> keys = new ArrayList<>(expected.keySet());
        try (KeyLocator locator = new KeyLocator(s)) {
            int[] got = locator.locate(new Coverage.Table(new TableName("public", "Loc Keys"), pieces), keys);
            int wrong = 0;
            StringBuilder first = new StringBuilder();
            for (int i = 0; i < keys.size(); i++) {
                if (got[i] != expected.get(keys.get(i))) {
                    if (wrong++ < 5) first.append(keys.get(i)).append(" in piece ").append(got[i]).append(" not ").append(expected.get(keys.get(i))).append("; ");
                }
            }
            assertEquals(0, wrong, () -> "misplaced keys: " + first);
        }
    }
}
