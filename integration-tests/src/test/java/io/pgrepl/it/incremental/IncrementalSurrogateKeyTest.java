package io.pgrepl.it.incremental;

import static io.pgrepl.it.incremental.IncSupport.waitUntil;
import static io.pgrepl.it.snapshot.SnapshotSupport.await;
import static io.pgrepl.it.snapshot.SnapshotSupport.config;
import static io.pgrepl.it.snapshot.SnapshotSupport.connect;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.snapshot.incremental.IncrementalOptions;
import io.pgrepl.client.snapshot.incremental.IncrementalSnapshots;
import io.pgrepl.client.snapshot.incremental.SnapshotSignals;
import io.pgrepl.client.snapshot.incremental.TableProgress;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.codec.pgoutput.TupleView;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgServerConfig;
import io.pgrepl.testkit.junit.PgTest;
import java.time.Duration;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A table walked by a surrogate key (a mixed-case column that needs quoting) while a workload moves
 * rows' surrogate values ahead of the walk and behind it, changes rows just ahead of the chunk in
 * flight, deletes and inserts: the table rebuilt by its primary key (the key the stream's changes
 * carry) from changes and reads equals the source, no read follows a newer change of its row, and
 * the snapshot ends. A surrogate key that is not unique, or allows NULL, fails its table at once
 * with what to run, the other tables going on.
 */
@PgTest
class IncrementalSurrogateKeyTest {
    private static final String TABLE = "Inc Sur";
    private static final String Q = "\"Inc Sur\"";

    /** {@link Rebuild} keyed by id, which also notes the last surrogate value read. */
    static final class SurrogateRebuild extends Rebuild {
        volatile long lastSurrogate;
        volatile String keyFlags = "";

        SurrogateRebuild() {
            super(TABLE);
        }

        @Override
        public synchronized void onSnapshotRead(TupleView row, long position) {
            super.onSnapshotRead(row, position);
            if (!row.relation().name().equals(TABLE)) return;
            lastSurrogate = Long.parseLong(row.text(3));
            StringBuilder b = new StringBuilder();
            for (int k = 0; k < row.relation().keyColumnCount(); k++) b.append(row.relation().column(row.relation().keyColumnIndex(k)).name());
            keyFlags = b.toString();
        }
    }

    @Test
    void surrogateKeyUnderKeyMovesOn18(@PgServerConfig(version = 18) PgServer s) throws Exception {
        run(s, "inc_sur18", false);
    }

    @Test
    void surrogateKeyUnderKeyMovesOn10(@PgServerConfig(version = 10) PgServer s) throws Exception {
        run(s, "inc_sur10", true);
    }

    private static void run(PgServer s, String slot, boolean signalTable) throws Exception {
        int rows = 6000;
        s.sql("postgres", "DROP PUBLICATION IF EXISTS inc_sur_pub; DROP TABLE IF EXISTS " + Q + ", inc_sur_dup, inc_sur_null, inc_sur_signal;"
                + " DROP SEQUENCE IF EXISTS inc_sur_seq; CREATE SEQUENCE inc_sur_seq START 10000000;"
                // The surrogate order is unrelated to the primary key's: a chunk of the walk spans the whole id range.
                + " CREATE TABLE " + Q + " (id int PRIMARY KEY, v text, n int, \"Ord-Key\" bigint NOT NULL);"
                + " CREATE UNIQUE INDEX inc_sur_ord ON " + Q + " (\"Ord-Key\");"
                + " INSERT INTO " + Q + " SELECT g, md5(g::text), 0, (g * 7919) % " + rows + " FROM generate_series(1, " + rows + ") g;"
                // pgbench_history's shape: a column that repeats; and one unique but nullable.
                + " CREATE TABLE inc_sur_dup (tid int, delta int, mtime timestamp(3));"
                + " INSERT INTO inc_sur_dup SELECT g % 10, g, '2026-01-01'::timestamp(3) + g * interval '1 ms' FROM generate_series(1, 500) g;"
                + " CREATE TABLE inc_sur_null (id int PRIMARY KEY, u int UNIQUE); INSERT INTO inc_sur_null VALUES (1, 1), (2, NULL);"
                + " CREATE TABLE inc_sur_signal (id varchar(42) PRIMARY KEY, type varchar(32) NOT NULL, data varchar(2048));"
                + " CREATE PUBLICATION inc_sur_pub FOR TABLE " + Q + ", inc_sur_dup, inc_sur_null, inc_sur_signal");
        SurrogateRebuild rebuild = new SurrogateRebuild();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong txs = new AtomicLong();
        try (PgConnection sql = connect(s, ReplicationMode.NONE); PgConnection work = connect(s, ReplicationMode.NONE);
             PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            IncSupport.createSlot(repl, slot);
            LogicalReplicationOptions o = LogicalReplicationOptions.builder(slot).publications("inc_sur_pub")
                    .messages(signalTable ? null : Boolean.TRUE).autoAcknowledge(true).statusInterval(Duration.ofMillis(200)).build();
            IncrementalOptions io = IncrementalOptions.of(config(s, ReplicationMode.NONE)).withChunkSize(150);
            IncrementalSnapshots snaps = IncrementalSnapshots.create(signalTable ? io.withSignalTable("public.inc_sur_signal") : io, rebuild);
            LogicalReplicationStream stream = repl.startLogical(o, snaps);
            await(stream.started());
            Thread w = new Thread(() -> {
                Random rnd = new Random(11);
                try {
                    while (!stop.get()) {
                        // Rows just ahead of the walk: in the chunk being read, or the next.
                        String ahead = "(SELECT id FROM " + Q + " WHERE \"Ord-Key\" > " + rebuild.lastSurrogate
                                + " ORDER BY \"Ord-Key\" LIMIT 1 OFFSET " + rnd.nextInt(300) + ")";
                        String stmt = switch (rnd.nextInt(6)) {
                            // the surrogate value moves far ahead of the walk, or behind it, with the row's data
                            case 0 -> "UPDATE " + Q + " SET \"Ord-Key\" = nextval('inc_sur_seq'), n = n + 1 WHERE id = " + ahead;
                            case 1 -> "UPDATE " + Q + " SET \"Ord-Key\" = -nextval('inc_sur_seq'), n = n + 1 WHERE id = " + ahead;
                            case 2 -> "UPDATE " + Q + " SET v = md5(random()::text), n = n + 1 WHERE id = " + ahead;
                            case 3 -> "DELETE FROM " + Q + " WHERE id = " + ahead;
                            case 4 -> "INSERT INTO " + Q + " VALUES (nextval('inc_sur_seq'), 'ins', 0, " + (rebuild.lastSurrogate + 1 + rnd.nextInt(200))
                                    + ") ON CONFLICT DO NOTHING";
                            default -> "UPDATE " + Q + " SET id = nextval('inc_sur_seq'), n = n + 1 WHERE id = " + ahead;
                        };
                        await(work.query(stmt));
                        txs.incrementAndGet();
                    }
                } catch (Exception e) {
                    if (!stop.get()) throw new RuntimeException(e);
                }
            }, "inc-sur-workload");
            w.setDaemon(true);
            w.start();
            waitUntil("the workload", Duration.ofSeconds(30), () -> txs.get() > 20);
            long before = txs.get();
            String data = "{\"data-collections\": [\"public.\\\"Inc Sur\\\"\"], \"type\": \"incremental\", \"surrogate-key\": \"Ord-Key\"}";
            if (signalTable) {
                await(sql.query("INSERT INTO inc_sur_signal VALUES ('sur-1', 'execute-snapshot', " + quote(data) + ")"));
                await(sql.query("INSERT INTO inc_sur_signal VALUES ('sur-2', 'execute-snapshot', "
                        + quote("{\"data-collections\": [\"public.inc_sur_dup\"], \"surrogate-key\": \"tid\"}") + ")"));
                await(sql.query("INSERT INTO inc_sur_signal VALUES ('sur-3', 'execute-snapshot', "
                        + quote("{\"data-collections\": [\"public.inc_sur_null\"], \"surrogate-key\": \"u\"}") + ")"));
            } else {
                snaps.signal(SnapshotSignals.parse("execute-snapshot", data), "test");
                snaps.signal(SnapshotSignals.parse("execute-snapshot", "{\"data-collections\": [\"public.inc_sur_dup\"], \"surrogate-key\": \"tid\"}"), "test");
                snaps.signal(SnapshotSignals.parse("execute-snapshot", "{\"data-collections\": [\"public.inc_sur_null\"], \"surrogate-key\": \"u\"}"), "test");
            }
            String name = "public.\"Inc Sur\"";
            waitUntil("the snapshot's end", Duration.ofSeconds(120), () -> ended(rebuild, name)
                    && ended(rebuild, "public.inc_sur_dup") && ended(rebuild, "public.inc_sur_null"));
            long during = txs.get() - before;
            stop.set(true);
            w.join(30_000);
            assertEquals(TableProgress.Status.COMPLETED, rebuild.progress.get(name).status(), String.valueOf(rebuild.progress.get(name)));
            TableProgress dupP = rebuild.progress.get("public.inc_sur_dup");
            assertEquals(TableProgress.Status.FAILED, dupP.status());
            assertEquals("surrogate key \"tid\" of table public.inc_sur_dup is not known to be unique: no valid unique index without a"
                    + " WHERE clause or expressions has only its columns as its key, and two rows sharing a value at a chunk boundary"
                    + " would lose the second. Create one (CREATE UNIQUE INDEX CONCURRENTLY ON \"public\".\"inc_sur_dup\" (\"tid\"))"
                    + " or name another surrogate key", dupP.error());
            TableProgress nullP = rebuild.progress.get("public.inc_sur_null");
            assertEquals(TableProgress.Status.FAILED, nullP.status());
            assertEquals("surrogate key column \"u\" of table public.inc_sur_null allows NULL, and a row whose key is NULL is never"
                    + " read: make it NOT NULL (ALTER TABLE \"public\".\"inc_sur_null\" ALTER COLUMN \"u\" SET NOT NULL) or name another"
                    + " surrogate key", nullP.error());
            await(sql.query("INSERT INTO " + Q + " VALUES (-1, 'sentinel', 0, -1)"));
            waitUntil("the sentinel", Duration.ofSeconds(60), () -> rebuild.sentinelSeen);
            await(stream.stop());
            snaps.close();
            Map<String, String> expected = IncSupport.source(sql, Q);
            synchronized (rebuild) {
                assertTrue(rebuild.violations.isEmpty(), "reads that follow a newer change of their row: " + rebuild.violations);
                assertTrue(rebuild.reads > rows / 2, "reads: " + rebuild.reads);
            }
            // Reads are keyed as the stream's changes are: by the primary key, not by the walked column.
            assertEquals("id", rebuild.keyFlags);
            assertTrue(during > 20, "the workload ran during the snapshot: " + during + " transactions");
            Map<String, String> got = rebuild.rowsCopy();
            int diff = 0;
            StringBuilder sample = new StringBuilder();
            for (Map.Entry<String, String> e : expected.entrySet()) {
                if (!e.getValue().equals(got.get(e.getKey())) && diff++ < 10) {
                    sample.append(e.getKey()).append(": ").append(e.getValue()).append(" vs ").append(got.get(e.getKey())).append("; ");
                }
            }
            assertEquals(0, diff, "rows differing from the source: " + sample);
            assertEquals(expected.size(), got.size(), "row count");
        } finally {
            stop.set(true);
        }
    }

    private static String quote(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    private static boolean ended(Rebuild r, String t) {
        return r.status(t, TableProgress.Status.COMPLETED) || r.status(t, TableProgress.Status.FAILED);
    }
}
