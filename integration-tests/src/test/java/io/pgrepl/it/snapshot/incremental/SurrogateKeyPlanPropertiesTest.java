package io.pgrepl.it.snapshot.incremental;

import static io.pgrepl.it.connect.Await.await;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.QueryResult;
import io.pgrepl.client.Row;
import io.pgrepl.client.snapshot.SnapshotException;
import io.pgrepl.client.snapshot.incremental.KeyedTable;
import io.pgrepl.client.snapshot.incremental.TablePlanner;
import io.pgrepl.testkit.PgServer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * The chunk planner with surrogate keys, on generated tables in a real server (18 and 10, one
 * each for the class): duplicate values, NULLs, with and without a unique index and NOT NULL, and
 * key values moved between two chunks of the walk. A surrogate key is accepted exactly when a
 * unique index covers it and it is NOT NULL (the expected outcome comes from the generated
 * constraints, not from the planner); an accepted one, walked with the planner's chunk SQL, reads
 * every row whose key did not move exactly once, and a moved row at most twice (once under each
 * value). The surrogate column is a {@code numeric(6,1)} whose name needs quoting.
 */
class SurrogateKeyPlanPropertiesTest {
    private static PgServer pg18;
    private static PgServer pg10;
    private static PgConnection c18;
    private static PgConnection c10;

    @BeforeContainer
    static void start() throws Exception {
        pg18 = PgServer.start(PgServer.builder().version(18).build());
        pg10 = PgServer.start(PgServer.builder().version(10).build());
        c18 = TablePlannerTest.connect(pg18);
        c10 = TablePlannerTest.connect(pg10);
    }

    @AfterContainer
    static void stop() {
        if (c18 != null) c18.close();
        if (c10 != null) c10.close();
        if (pg18 != null) pg18.close();
        if (pg10 != null) pg10.close();
    }

    /** One generated case: key values (null: NULL) with repeats, the constraints declared, the chunk size, and moves. */
    record Case(List<Integer> values, boolean uniqueIndex, boolean notNull, int chunk, List<int[]> moves) {}

    @Provide
    Arbitrary<Case> cases() {
        Arbitrary<List<Integer>> values = Arbitraries.integers().between(0, 25).injectNull(0.1).list().ofMinSize(0).ofMaxSize(40);
        // A move: after chunk m[0], the row at position m[1] (mod the table) gets a fresh value, ahead of the walk (m[2] = 1) or behind it.
        Arbitrary<int[]> move = Combinators.combine(Arbitraries.integers().between(0, 12), Arbitraries.integers().between(0, 1000),
                Arbitraries.integers().between(0, 1)).as((a, b, d) -> new int[] {a, b, d});
        return Combinators.combine(values, Arbitraries.of(true, false), Arbitraries.of(true, false), Arbitraries.integers().between(1, 7),
                move.list().ofMaxSize(4)).as(Case::new);
    }

    @Property(tries = 40)
    void on18(@ForAll("cases") Case k) throws Exception {
        check(c18, k);
    }

    @Property(tries = 25)
    void on10(@ForAll("cases") Case k) throws Exception {
        check(c10, k);
    }

    private static void check(PgConnection c, Case k) throws Exception {
        // The data the constraints allow: repeats dropped under a unique index, NULLs replaced under NOT NULL.
        List<Integer> values = new ArrayList<>();
        Set<Integer> seen = new HashSet<>();
        int fresh = 500;
        for (Integer v : k.values()) {
            if (v == null && k.notNull()) v = fresh++;
            if (v != null && k.uniqueIndex() && !seen.add(v)) continue;
            values.add(v);
        }
        StringBuilder ddl = new StringBuilder("DROP PUBLICATION IF EXISTS skp_pub; DROP TABLE IF EXISTS \"SK prop\";"
                + " CREATE TABLE \"SK prop\" (id int PRIMARY KEY, \"Key Col\" numeric(6,1)" + (k.notNull() ? " NOT NULL" : "")
                + ", note varchar(8));");
        if (k.uniqueIndex()) ddl.append(" CREATE UNIQUE INDEX ON \"SK prop\" (\"Key Col\");");
        for (int i = 0; i < values.size(); i++) {
            ddl.append(" INSERT INTO \"SK prop\" VALUES (").append(i).append(", ")
                    .append(values.get(i) == null ? "NULL" : values.get(i) + ".5").append(", 'n").append(i).append("');");
        }
        ddl.append(" CREATE PUBLICATION skp_pub FOR TABLE \"SK prop\"");
        await(c.simpleQuery(ddl.toString()));

        KeyedTable t;
        try {
            t = await(TablePlanner.plan(c, List.of("skp_pub"), "public.\"SK prop\"", null, List.of("Key Col")));
        } catch (SnapshotException refusal) {
            assertTrue(!k.uniqueIndex() || !k.notNull(), "refused a unique NOT NULL key: " + refusal.getMessage());
            String why = !k.uniqueIndex() ? "is not known to be unique" : "allows NULL";
            String fix = !k.uniqueIndex() ? "CREATE UNIQUE INDEX CONCURRENTLY ON \"public\".\"SK prop\" (\"Key Col\")"
                    : "ALTER TABLE \"public\".\"SK prop\" ALTER COLUMN \"Key Col\" SET NOT NULL";
            assertTrue(refusal.getMessage().contains(why) && refusal.getMessage().contains(fix), refusal.getMessage());
            return;
        }
        assertTrue(k.uniqueIndex() && k.notNull(), "accepted a key that is not unique and NOT NULL");
        assertEquals(List.of("Key Col"), t.keyColumns().stream().map(KeyedTable.Column::name).toList());
        assertEquals(List.of("id"), t.matchColumns().stream().map(KeyedTable.Column::name).toList(),
                "changes are matched by the primary key, which the stream's deletes carry");

        Map<Integer, List<int[]>> movesAfter = new HashMap<>();
        for (int[] m : k.moves()) movesAfter.computeIfAbsent(m[0], x -> new ArrayList<>()).add(m);
        Map<String, Integer> reads = new LinkedHashMap<>();
        Set<String> moved = new HashSet<>();
        List<String> after = null;
        int chunks = 0;
        int nextFresh = 10_000;
        while (true) {
            QueryResult r = await(c.query(t.chunkSql(after, null, k.chunk())));
            for (Row row : r.rows()) {
                reads.merge(row.get(t.matchColumnIndexes()[0]), 1, Integer::sum);
                after = List.of(row.get(t.keyColumnIndexes()[0]));
            }
            if (r.rows().size() < k.chunk()) break;
            for (int[] m : movesAfter.getOrDefault(chunks++, List.of())) {
                if (values.isEmpty()) continue;
                int id = m[1] % values.size();
                int to = m[2] == 1 ? nextFresh++ : -(nextFresh++);
                QueryResult u = await(c.query("UPDATE \"SK prop\" SET \"Key Col\" = " + to + " WHERE id = " + id + " RETURNING id"));
                if (!u.rows().isEmpty()) moved.add(Integer.toString(id));
            }
        }
        for (int i = 0; i < values.size(); i++) {
            String id = Integer.toString(i);
            int n = reads.getOrDefault(id, 0);
            if (moved.contains(id)) assertTrue(n <= 2, "moved row " + id + " read " + n + " times");
            else assertEquals(1, n, "row " + id + " (key " + values.get(i) + ") read " + n + " times; reads " + reads);
        }
    }
}
