package io.pgrepl.flink;

import io.pgrepl.client.PgConnection;
import io.pgrepl.testkit.PgServer;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Writes to a table keyed by a bigint column on a thread of its own until stopped: small
 * transactions of inserts, updates (some of rows whose TOASTed column stays unchanged), primary-key
 * changes up by {@link #MOVED} (past every split's bound, into the last split) and down to the
 * negated key (before the first split's), and deletes. A quarter of the statements pick a key moved
 * earlier, so moved rows are updated, moved again and deleted too; of the others, half pick a key
 * just around one of the keys a snapshot reader read last ({@code front}), where a piece was read a
 * moment ago and the next is about to be, so that many writes commit between the transaction
 * snapshots of neighbouring pieces. Every write sets {@code n} from
 * the table's sequence, so a key's versions grow in commit order. Moved keys never meet another
 * row's: keys start below {@link #MOVED}, a move adds it or negates.
 */
final class MixedWriter implements AutoCloseable {
    static final long MOVED = 1_000_000_000_000L;

    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicReference<Throwable> failed = new AtomicReference<>();
    final AtomicLong transactions = new AtomicLong();
    final AtomicLong inserts = new AtomicLong();
    final AtomicLong updates = new AtomicLong();
    final AtomicLong keyMoves = new AtomicLong();
    final AtomicLong deletes = new AtomicLong();
    private final Thread thread;

    /**
     * Starts writing.
     *
     * @param table       the quoted table name
     * @param key         the quoted key column
     * @param rows        keys 1 to {@code rows} exist at the start; new keys follow
     * @param toastEvery  every key divisible by it holds a TOASTed value in a column the updates leave alone
     * @param front       keys the snapshot readers read last (0: none yet)
     * @param pauseMicros the pause between transactions
     */
    MixedWriter(PgServer pg, String table, String key, long rows, long toastEvery, AtomicLongArray front, long pauseMicros) {
        thread = new Thread(() -> {
            Random r = new Random(7);
            long next = rows + 1;
            long[] moved = new long[1024];
            int movedCount = 0;
            try (PgConnection c = Fixture.connect(pg)) {
                while (running.get()) {
                    StringBuilder tx = new StringBuilder("BEGIN;");
                    int statements = 1 + r.nextInt(4);
                    for (int i = 0; i < statements; i++) {
                        long near = front.get(r.nextInt(front.length()));
                        long id;
                        if (movedCount > 0 && r.nextInt(4) == 0) id = moved[r.nextInt(Math.min(movedCount, moved.length))];
                        else if (near > 0 && r.nextBoolean()) id = Math.max(1, near - 1_000 + r.nextInt(8_000));
                        else id = 1 + (long) (r.nextDouble() * (next - 1));
                        String where = " WHERE " + key + " = " + id + ";";
                        switch (r.nextInt(10)) {
                            case 0, 1 -> {
                                tx.append("INSERT INTO ").append(table).append(" (").append(key).append(", amount, placed, label, tags, memo) VALUES (")
                                        .append(next++).append(", ").append(r.nextBoolean() ? "NULL" : "123456789.125")
                                        .append(", '2025-02-03 04:05:06.789', 'new \"ü\" ' || ").append(next)
                                        .append(", '{p,NULL,\"r s\"}', 'fresh');");
                                inserts.incrementAndGet();
                            }
                            case 2 -> {
                                tx.append("DELETE FROM ").append(table).append(where);
                                deletes.incrementAndGet();
                            }
                            case 3, 4 -> {
                                long to = id > 0 && r.nextBoolean() ? -id : id + MOVED;
                                tx.append("UPDATE ").append(table).append(" SET ").append(key).append(" = ").append(to)
                                        .append(", n = DEFAULT").append(where);
                                moved[movedCount++ % moved.length] = to;
                                keyMoves.incrementAndGet();
                            }
                            case 5 -> {
                                long toasted = toastEvery * (1 + (long) (r.nextDouble() * (rows / toastEvery)));
                                tx.append("UPDATE ").append(table).append(" SET amount = amount + 1, n = DEFAULT WHERE ").append(key)
                                        .append(" = ").append(toasted).append(';');
                                updates.incrementAndGet();
                            }
                            default -> {
                                tx.append("UPDATE ").append(table).append(" SET amount = amount + 1.001, placed = placed + interval '1.5 ms',")
                                        .append(" label = CASE WHEN label IS NULL THEN 'upd ' || n ELSE NULL END, tags = tags || 'u'::text,")
                                        .append(" n = DEFAULT").append(where);
                                updates.incrementAndGet();
                            }
                        }
                    }
                    c.simpleQuery(tx.append("COMMIT").toString()).toCompletableFuture().get(30, TimeUnit.SECONDS);
                    transactions.incrementAndGet();
                    if (pauseMicros > 0) TimeUnit.MICROSECONDS.sleep(pauseMicros);
                }
            } catch (Throwable e) {
                failed.set(e);
            }
        }, "mixed-writer");
        thread.start();
    }

    /** Stops writing and waits for the last transaction. */
    @Override
    public void close() throws InterruptedException {
        running.set(false);
        thread.join(30_000);
    }

    /** {@return what ended the writer early, or null} */
    Throwable failure() {
        return failed.get();
    }
}
