package io.pgrepl.benchmarks;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.QueryResult;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The soak's writer: transactions of 1-400 inserted rows plus a few counter updates and deletes
 * of earlier rows, until {@code target} changes were committed (counted from the command tags,
 * so deletes of already deleted rows do not count); then the marker row.
 */
final class SoakWriter implements Runnable {
    private final ConnectionConfig config;
    private final long target;
    final AtomicLong changes = new AtomicLong();
    volatile boolean done;
    volatile Throwable failure;

    /** Changes the application has applied: the writer keeps at most {@code maxLag} ahead of it. */
    private final java.util.function.LongSupplier applied;
    /**
     * A steady state, not a growing backlog: every reconnect makes the walsender decode again from
     * the slot's restart_lsn, so an unbounded lag turns each fault into a longer silent catch-up.
     */
    private final long maxLag;

    /** {@code maxLag} 0: no bound (the backlog grows when the writer is faster than the stream). */
    SoakWriter(ConnectionConfig config, long target, java.util.function.LongSupplier applied, long maxLag) {
        this.config = config;
        this.target = target;
        this.applied = applied;
        this.maxLag = maxLag;
    }

    @Override
    public void run() {
        SplittableRandom random = new SplittableRandom(42);
        try (PgConnection c = PgConnection.connect(config).toCompletableFuture().get(30, TimeUnit.SECONDS)) {
            long next = 1;
            while (changes.get() < target) {
                while (maxLag > 0 && changes.get() - applied.getAsLong() > maxLag) Thread.sleep(20);
                int k = 1 + random.nextInt(400);
                StringBuilder tx = new StringBuilder("BEGIN;INSERT INTO soak_rows SELECT g, (g % 1000)::int FROM generate_series(")
                        .append(next).append(',').append(next + k - 1).append(") g;UPDATE soak_counters SET n = n + 1 WHERE k IN (")
                        .append(random.nextInt(SoakState.COUNTERS));
                for (int i = random.nextInt(5); i > 0; i--) tx.append(',').append(random.nextInt(SoakState.COUNTERS));
                tx.append(");DELETE FROM soak_rows WHERE id IN (0");
                if (next > 1) {
                    for (int i = random.nextInt(k / 10 + 1); i > 0; i--) tx.append(',').append(1 + random.nextLong(next - 1));
                }
                tx.append(");COMMIT");
                List<QueryResult> results = c.simpleQuery(tx.toString()).toCompletableFuture().get(120, TimeUnit.SECONDS);
                long n = 0;
                for (QueryResult r : results) n += affected(r.commandTag());
                changes.addAndGet(n);
                next += k;
            }
            c.simpleQuery("INSERT INTO soak_rows VALUES (" + SoakState.MARKER + ", 0)").toCompletableFuture()
                    .get(120, TimeUnit.SECONDS);
        } catch (Throwable t) {
            failure = t;
        } finally {
            done = true;
        }
    }

    /** Rows affected by INSERT/UPDATE/DELETE from a command tag ("INSERT 0 12", "UPDATE 3", "DELETE 1"); 0 otherwise. */
    static long affected(String tag) {
        if (tag == null) return 0;
        if (!(tag.startsWith("INSERT") || tag.startsWith("UPDATE") || tag.startsWith("DELETE"))) return 0;
        return Long.parseLong(tag.substring(tag.lastIndexOf(' ') + 1));
    }
}
