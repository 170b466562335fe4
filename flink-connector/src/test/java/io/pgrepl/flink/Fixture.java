package io.pgrepl.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.Row;
import io.pgrepl.testkit.PgServer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The tables the source tests capture, the workload that changes them while the source runs, and
 * the checks: a changelog applied in order (upsert by key) must give the table as the server has it,
 * and no change of a key may carry an older version than one already seen for it. Every write sets
 * {@code n} from a sequence, so a key's versions grow with its commit order (writes of one key are
 * serialized by its row lock).
 */
final class Fixture {
    static final String COLUMNS = "id, amount, placed, note, tags, n, memo";

    private Fixture() {}

    static PgConnection connect(PgServer pg) throws Exception {
        ConnectionConfig c = ConnectionConfig.parse(pg.url(pg.superuser(), "postgres")).toBuilder().startupParameter("TimeZone", "UTC").build();
        return PgConnection.connect(c).toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    static void sql(PgServer pg, String sql) throws Exception {
        try (PgConnection c = connect(pg)) {
            c.simpleQuery(sql).toCompletableFuture().get(120, TimeUnit.SECONDS);
        }
    }

    static List<Row> query(PgServer pg, String sql) throws Exception {
        try (PgConnection c = connect(pg)) {
            return c.query(sql).toCompletableFuture().get(60, TimeUnit.SECONDS).rows();
        }
    }

    /** A table of real shapes under a name that needs quoting, {@code rows} rows, REPLICA IDENTITY FULL, analyzed. */
    static void createTable(PgServer pg, String quoted, int rows) throws Exception {
        String seq = "seq_" + Math.abs(quoted.hashCode());
        sql(pg, "CREATE SEQUENCE IF NOT EXISTS " + seq + ";"
                + "CREATE TABLE " + quoted + " (id int PRIMARY KEY, amount numeric(12,3), placed timestamp(3), note varchar(40),"
                + " tags text[], n bigint NOT NULL DEFAULT nextval('" + seq + "'), memo text);"
                + "ALTER TABLE " + quoted + " REPLICA IDENTITY FULL;"
                + "INSERT INTO " + quoted + " (id, amount, placed, note, tags, memo) SELECT g, (g * 1.125)::numeric(12,3),"
                + " timestamp '2024-01-01 00:00:00' + g * interval '1.234 second', CASE WHEN g % 7 = 0 THEN NULL ELSE 'nöte ' || g END,"
                + " CASE WHEN g % 5 = 0 THEN NULL ELSE ARRAY['a' || g, NULL, 'x,y \"q\"'] END,"
                + " CASE WHEN g % 1000 = 0 THEN (SELECT string_agg(md5(g::text || '-' || i), '') FROM generate_series(1, 300) i) ELSE 'm' || g END FROM generate_series(1, " + rows + ") g;"
                + "ANALYZE " + quoted);
    }

    /** Random inserts, updates (some changing the key, some a TOASTed column), deletes, in small transactions, until stopped. */
    static Thread workload(PgServer pg, String quoted, int rows, AtomicBoolean running, AtomicLong ops, AtomicReference<Throwable> failed) {
        Thread t = new Thread(() -> {
            Random r = new Random(42);
            int next = rows + 1;
            try (PgConnection c = connect(pg)) {
                while (running.get()) {
                    StringBuilder tx = new StringBuilder("BEGIN;");
                    int n = 1 + r.nextInt(4);
                    for (int i = 0; i < n; i++) {
                        int id = 1 + r.nextInt(next);
                        switch (r.nextInt(7)) {
                            case 0 -> tx.append("INSERT INTO ").append(quoted).append(" (id, amount, placed, note, tags, memo) VALUES (")
                                    .append(next++).append(", 1.5, '2025-02-03 04:05:06.789', 'new', '{p,q}', 'fresh');");
                            case 1 -> tx.append("DELETE FROM ").append(quoted).append(" WHERE id = ").append(id).append(';');
                            case 2 -> tx.append("UPDATE ").append(quoted).append(" SET id = ").append(next++)
                                    .append(", n = DEFAULT WHERE id = ").append(id).append(';');
                            case 3 -> tx.append("UPDATE ").append(quoted).append(" SET tags = ARRAY[NULL, 'u'], n = DEFAULT")
                                    .append(" WHERE id = ").append(id).append(';');
                            default -> tx.append("UPDATE ").append(quoted).append(" SET amount = amount + 1.001, note = NULL, n = DEFAULT")
                                    .append(" WHERE id = ").append(id).append(';');
                        }
                    }
                    c.simpleQuery(tx.append("COMMIT").toString()).toCompletableFuture().get(30, TimeUnit.SECONDS);
                    ops.addAndGet(n);
                }
            } catch (Throwable e) {
                failed.set(e);
            }
        }, "pg-workload");
        t.start();
        return t;
    }

    /** Applies a changelog in order, upsert by {@code id}; checks that no change of a key is older than one applied before it. */
    static final class Materialized {
        final Map<String, Map<String, String>> rows = new TreeMap<>();
        final Map<String, Long> lastN = new HashMap<>();
        final List<String> stale = new ArrayList<>();
        long reads;
        long changes;

        void apply(TextChange c) {
            if (c.op.equals("READ")) reads++;
            else changes++;
            switch (c.op) {
                case "READ", "INSERT" -> put(c.after, c);
                case "UPDATE" -> {
                    if (c.before != null) rows.remove(c.before.get("id"));
                    put(c.after, c);
                }
                case "DELETE" -> rows.remove(c.before.get("id"));
                default -> throw new AssertionError(c.op);
            }
        }

        private void put(Map<String, String> after, TextChange c) {
            String id = after.get("id");
            long n = Long.parseLong(after.get("n"));
            Long before = lastN.put(id, n);
            // A change carries a newer version than any before it; a read of a table read again may repeat the last one.
            boolean older = c.op.equals("READ") ? before != null && n < before : before != null && n <= before;
            if (older && stale.size() < 10) stale.add(c + " after version " + before);
            rows.put(id, after);
        }
    }

    /** The table as the server has it, as text rows by id. */
    static Map<String, Map<String, String>> table(PgServer pg, String quoted) throws Exception {
        Map<String, Map<String, String>> t = new TreeMap<>();
        String[] cols = COLUMNS.split(", ");
        for (Row row : query(pg, "SELECT " + COLUMNS + " FROM " + quoted)) {
            Map<String, String> m = new HashMap<>();
            for (int i = 0; i < cols.length; i++) m.put(cols[i], row.get(i));
            t.put(row.get(0), m);
        }
        return t;
    }

    static void assertSame(Map<String, Map<String, String>> expected, Materialized got) {
        assertTrue(got.stale.isEmpty(), () -> "stale versions emitted after newer ones: " + got.stale);
        List<String> diff = new ArrayList<>();
        for (Map.Entry<String, Map<String, String>> e : expected.entrySet()) {
            Map<String, String> g = got.rows.get(e.getKey());
            if (!e.getValue().equals(g) && diff.size() < 10) diff.add("id " + e.getKey() + ": table " + e.getValue() + ", changelog " + g);
        }
        for (String k : got.rows.keySet()) if (!expected.containsKey(k) && diff.size() < 10) diff.add("id " + k + " only in the changelog: " + got.rows.get(k));
        assertTrue(diff.isEmpty(), () -> expected.size() + " rows in the table, " + got.rows.size() + " materialized; differences: " + diff);
        assertEquals(expected.size(), got.rows.size());
    }
}
