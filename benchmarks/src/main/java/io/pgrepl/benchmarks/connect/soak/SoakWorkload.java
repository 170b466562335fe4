package io.pgrepl.benchmarks.connect.soak;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.QueryResult;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The Connect soak's writer, on one ordinary connection. Every row change gets a fresh {@code ver}
 * from a sequence and ids are never reused, so each record the connector writes is unique (a record
 * seen twice is a duplicate) and the source row's {@code ver} says which record must be its last.
 * Transactions, at random: 1-200 inserts (every 25th row with a 3.2 kB {@code big} value stored out
 * of line, STORAGE EXTERNAL), updates of earlier rows that leave {@code big} alone (unchanged TOAST:
 * the placeholder), a rewrite of {@code big}, deletes, a key change ({@code id} set from the
 * sequence: delete, tombstone, create), counter updates; every {@code bigEvery}-th transaction is a
 * big one (10,000 inserts and up to 10,000 updates). Counted from command tags until {@code target}
 * changes; then one {@code idle} pause when {@link #idleAt} is reached, and the end marker.
 */
final class SoakWorkload implements Runnable {
    static final String DDL = """
            CREATE SEQUENCE soak_ver;
            CREATE SEQUENCE soak_id;
            CREATE TABLE soak_items (id bigint PRIMARY KEY, ver bigint NOT NULL, qty int NOT NULL, note text, big text);
            ALTER TABLE soak_items ALTER big SET STORAGE EXTERNAL;
            CREATE TABLE soak_accounts (k int PRIMARY KEY, ver bigint NOT NULL, n bigint NOT NULL);
            CREATE TABLE soak_end (id int PRIMARY KEY);
            CREATE PUBLICATION soak_pub FOR TABLE soak_items, soak_accounts, soak_end;
            """;
    static final int ACCOUNTS = 1000;
    static final List<String> TABLES = List.of("soak_items", "soak_accounts", "soak_end");

    private final ConnectionConfig config;
    private final long target;
    private final int bigEvery;
    private final long maxLag;
    private final LongSupplier delivered;
    final AtomicLong changes = new AtomicLong();
    final AtomicLong transactions = new AtomicLong();
    /** The writer pauses once for {@code idleMillis} when it has written this many changes (0: never). */
    final long idleAt;
    private final long idleMillis;
    volatile boolean idle;
    volatile boolean done;
    volatile Throwable failure;

    SoakWorkload(ConnectionConfig config, long target, int bigEvery, long maxLag, LongSupplier delivered, long idleAt,
                 long idleMillis) {
        this.config = config;
        this.target = target;
        this.bigEvery = bigEvery;
        this.maxLag = maxLag;
        this.delivered = delivered;
        this.idleAt = idleAt;
        this.idleMillis = idleMillis;
    }

    /** The rows there before the connector starts (its initial snapshot reads them). */
    static String initialRows(int items) {
        return "INSERT INTO soak_items SELECT nextval('soak_id'), nextval('soak_ver'), 0, 'initial',"
                + " CASE WHEN g % 25 = 0 THEN repeat(md5(g::text), 100) END FROM generate_series(1, " + items + ") g;"
                + "INSERT INTO soak_accounts SELECT g, nextval('soak_ver'), 0 FROM generate_series(0, " + (ACCOUNTS - 1) + ") g;";
    }

    @Override
    public void run() {
        SplittableRandom random = new SplittableRandom(19);
        try (PgConnection c = PgConnection.connect(config).toCompletableFuture().get(60, TimeUnit.SECONDS)) {
            long maxId = Long.parseLong(c.query("SELECT last_value FROM soak_id").toCompletableFuture()
                    .get(60, TimeUnit.SECONDS).singleRow().get(0));
            boolean paused = idleAt <= 0;
            while (changes.get() < target) {
                while (maxLag > 0 && changes.get() - delivered.getAsLong() > maxLag) Thread.sleep(50);
                if (!paused && changes.get() >= idleAt) {
                    paused = true;
                    idle = true;
                    Thread.sleep(idleMillis);
                    idle = false;
                }
                long tx = transactions.incrementAndGet();
                String sql = bigEvery > 0 && tx % bigEvery == 0 ? big(random, maxId) : small(random, maxId);
                List<QueryResult> results = c.simpleQuery(sql).toCompletableFuture().get(600, TimeUnit.SECONDS);
                long n = 0;
                for (QueryResult r : results) n += affected(r.commandTag());
                changes.addAndGet(n);
                maxId = Long.parseLong(c.query("SELECT last_value FROM soak_id").toCompletableFuture()
                        .get(60, TimeUnit.SECONDS).singleRow().get(0));
            }
            c.simpleQuery("INSERT INTO soak_end VALUES (1)").toCompletableFuture().get(120, TimeUnit.SECONDS);
        } catch (Throwable t) {
            failure = t;
        } finally {
            done = true;
        }
    }

    private static String small(SplittableRandom r, long maxId) {
        int k = 1 + r.nextInt(200);
        StringBuilder tx = new StringBuilder("BEGIN;INSERT INTO soak_items SELECT nextval('soak_id'), nextval('soak_ver'),"
                + " (g % 97)::int, 'n' || g, CASE WHEN g % 25 = 0 THEN repeat(md5(g::text || random()::text), 100) END"
                + " FROM generate_series(1, ").append(k).append(") g;");
        tx.append("UPDATE soak_accounts SET n = n + 1, ver = nextval('soak_ver') WHERE k IN (").append(r.nextInt(ACCOUNTS));
        for (int i = r.nextInt(4); i > 0; i--) tx.append(',').append(r.nextInt(ACCOUNTS));
        tx.append(");");
        if (maxId > 1) {
            tx.append("UPDATE soak_items SET qty = qty + 1, ver = nextval('soak_ver') WHERE id IN (").append(id(r, maxId));
            for (int i = r.nextInt(k / 4 + 1); i > 0; i--) tx.append(',').append(id(r, maxId));
            tx.append(");DELETE FROM soak_items WHERE id IN (").append(id(r, maxId));
            for (int i = r.nextInt(k / 3 + 1); i > 0; i--) tx.append(',').append(id(r, maxId));
            tx.append(");");
            if (r.nextInt(4) == 0) {
                tx.append("UPDATE soak_items SET id = nextval('soak_id'), ver = nextval('soak_ver') WHERE id = ")
                        .append(id(r, maxId)).append(';');
            }
            if (r.nextInt(8) == 0) {
                tx.append("UPDATE soak_items SET big = repeat(md5(random()::text), 100), ver = nextval('soak_ver') WHERE id = ")
                        .append(id(r, maxId)).append(';');
            }
        }
        return tx.append("COMMIT").toString();
    }

    private static String big(SplittableRandom r, long maxId) {
        long from = 1 + r.nextLong(Math.max(1, maxId - 10_000));
        return "BEGIN;INSERT INTO soak_items SELECT nextval('soak_id'), nextval('soak_ver'), 1, 'big tx',"
                + " CASE WHEN g % 25 = 0 THEN repeat(md5(g::text), 100) END FROM generate_series(1, 10000) g;"
                + "UPDATE soak_items SET qty = qty + 1, ver = nextval('soak_ver') WHERE id BETWEEN " + from + " AND "
                + (from + 9_999) + ";COMMIT";
    }

    /** Mostly recent rows (alive more often), sometimes any earlier one. */
    private static long id(SplittableRandom r, long maxId) {
        if (r.nextInt(3) == 0) return 1 + r.nextLong(maxId);
        return Math.max(1, maxId - r.nextLong(Math.min(maxId, 50_000)));
    }

    /** Rows affected by INSERT/UPDATE/DELETE from a command tag; 0 otherwise. */
    static long affected(String tag) {
        if (tag == null || !(tag.startsWith("INSERT") || tag.startsWith("UPDATE") || tag.startsWith("DELETE"))) return 0;
        return Long.parseLong(tag.substring(tag.lastIndexOf(' ') + 1));
    }
}
