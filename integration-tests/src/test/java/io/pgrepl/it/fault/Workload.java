package io.pgrepl.it.fault;

import io.pgrepl.client.PgConnection;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A steady writer on its own direct connection: transactions of random size (1-40 inserted rows,
 * plus updates and deletes of earlier rows), one in twenty rolled back, until {@code rows} rows
 * were inserted. Progress is readable from any thread for timing the faults.
 */
final class Workload implements Runnable {
    private final PgConnection sql;
    private final String table;
    private final int rows;
    private final SplittableRandom random;
    final AtomicInteger inserted = new AtomicInteger();
    final AtomicInteger transactions = new AtomicInteger();
    volatile Throwable failure;
    volatile boolean done;

    Workload(PgConnection sql, String table, int rows, long seed) {
        this.sql = sql;
        this.table = table;
        this.rows = rows;
        this.random = new SplittableRandom(seed);
    }

    private StringBuilder appendIds(StringBuilder sb, int count, int below) {
        sb.append("0"); // no row has id 0: the list is never empty
        for (int i = 0; i < count; i++) sb.append(',').append(1 + random.nextInt(below - 1));
        return sb;
    }

    @Override
    public void run() {
        try {
            int next = 1;
            while (next <= rows) {
                int k = Math.min(1 + random.nextInt(40), rows - next + 1);
                StringBuilder tx = new StringBuilder("BEGIN;");
                tx.append("INSERT INTO ").append(table).append(" SELECT g, md5(g::text) FROM generate_series(")
                        .append(next).append(',').append(next + k - 1).append(") g;");
                if (next > 100) {
                    // One UPDATE and one DELETE statement per transaction, each over a few random earlier rows.
                    appendIds(tx.append("UPDATE ").append(table).append(" SET v = v || 'u' WHERE id IN ("),
                            random.nextInt(k / 2 + 1), next).append(");");
                    appendIds(tx.append("DELETE FROM ").append(table).append(" WHERE id IN ("),
                            random.nextInt(k / 4 + 1), next).append(");");
                }
                boolean rollback = random.nextInt(20) == 0;
                tx.append(rollback ? "ROLLBACK;" : "COMMIT;");
                sql.simpleQuery(tx.toString()).toCompletableFuture().get(60, TimeUnit.SECONDS);
                if (!rollback) {
                    next += k;
                    inserted.set(next - 1);
                }
                transactions.incrementAndGet();
            }
        } catch (Throwable t) {
            failure = t;
        } finally {
            done = true;
        }
    }
}
