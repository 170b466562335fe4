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
import io.pgrepl.client.snapshot.incremental.TableProgress;
import io.pgrepl.client.snapshot.incremental.WatermarkMode;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgServerConfig;
import io.pgrepl.testkit.junit.PgTest;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * A transaction whose commit the stream delivered before the table's keys were tracked, yet which
 * the chunk's snapshot does not see: a backend waiting for a synchronous standby has written and
 * flushed its commit record (the walsender decodes and sends it) but stays in the proc array until
 * the wait ends (RecordTransactionCommit calls SyncRepWaitForLSN before CommitTransaction calls
 * ProcArrayEndTransaction). Here the standby never comes ({@code synchronous_standby_names =
 * 'ghost'}) until the test lets the waiter go. A chunk read meanwhile misses the waiter's changes,
 * which the stream applied before the snapshot started: it must be read again, not emitted.
 */
@PgTest
class IncrementalSyncWaitTest {
    private static final int ROWS = 1000;
    /** Ids the waiting transaction changes: all in the first chunk. */
    private static final String WAITER_KEYS = "(2, 4, 6, 8, 10)";

    @Test
    void chunkMissingALingeringCommitIsReadAgainOn18(@PgServerConfig(version = 18) PgServer s) throws Exception {
        run(s, "inc_sw", WatermarkMode.MESSAGE, 0);
    }

    /**
     * More commits than the engine's window of recent commits (1,024) are delivered while the
     * waiter lingers: the waiter must still count against the chunk read during the wait.
     */
    @Test
    void lingeringCommitOutlastsManyLaterCommitsOn18(@PgServerConfig(version = 18) PgServer s) throws Exception {
        run(s, "inc_swm", WatermarkMode.MESSAGE, 1500);
    }

    /**
     * As many commits (1,500) delivered while the waiter lingers, before the table's keys are
     * tracked: the engine's window of recent commits no longer holds the waiter, and the server's
     * word on which commits still linger must.
     */
    @Test
    void lingeringCommitOutlastsManyCommitsBeforeTheStartOn18(@PgServerConfig(version = 18) PgServer s) throws Exception {
        run(s, "inc_swmb", WatermarkMode.MESSAGE, 1500, true);
    }

    /**
     * Read-only reads do not wait for the standby, so the chunk is read again and again while the
     * waiter lingers: the re-reads back off rather than spin (counted in the server log).
     */
    @Test
    void readOnlyReReadsBackOffWhileTheCommitLingersOn18(@PgServerConfig(version = 18) PgServer s) throws Exception {
        run(s, "inc_swro", WatermarkMode.READ_ONLY, 0);
    }

    /** 10: signal table watermarks (their inserts wait for the standby like message marks), and the later commits besides. */
    @Test
    void lingeringCommitWithSignalTableWatermarksOn10(@PgServerConfig(version = 10) PgServer s) throws Exception {
        run(s, "inc_sws", WatermarkMode.SIGNAL_TABLE, 1500);
    }

    private static void run(PgServer s, String table, WatermarkMode mode, int laterCommits) throws Exception {
        run(s, table, mode, laterCommits, false);
    }

    private static void run(PgServer s, String table, WatermarkMode mode, int laterCommits, boolean laterBeforeStart) throws Exception {
        IncrementalExactnessTest.setup(s, table, ROWS);
        String slot = table + s.majorVersion();
        if (mode == WatermarkMode.SIGNAL_TABLE) {
            s.sql("postgres", "DROP TABLE IF EXISTS " + table + "_signal; CREATE TABLE " + table + "_signal (id varchar(42) PRIMARY KEY,"
                    + " type varchar(32) NOT NULL, data varchar(2048)); ALTER PUBLICATION " + IncrementalExactnessTest.PUB
                    + " ADD TABLE " + table + "_signal");
        }
        Rebuild rebuild = new Rebuild(table);
        IncrementalOptions io = IncrementalOptions.of(config(s, ReplicationMode.NONE)).withChunkSize(100);
        io = (mode == WatermarkMode.SIGNAL_TABLE ? io.withSignalTable("public." + table + "_signal") : io).withWatermarks(mode);
        if (mode == WatermarkMode.READ_ONLY) {
            // Its own role, whose statements alone the server logs: the chunk reads are counted there.
            s.sql("postgres", "DROP ROLE IF EXISTS " + table + "_ro; CREATE ROLE " + table + "_ro LOGIN PASSWORD 'sw-ro-secret';"
                    + " ALTER ROLE " + table + "_ro SET default_transaction_read_only = on; ALTER ROLE " + table
                    + "_ro SET log_statement = 'all'; GRANT SELECT ON " + table + " TO " + table + "_ro");
            io = IncrementalOptions.of(config(s, ReplicationMode.NONE).toBuilder().user(table + "_ro").password("sw-ro-secret").build())
                    .withChunkSize(100).withWatermarks(mode);
        }
        String t = "public." + table;
        CompletableFuture<?> commit = null;
        try (PgConnection sql = connect(s, ReplicationMode.NONE); PgConnection waiter = connect(s, ReplicationMode.NONE);
             PgConnection work = connect(s, ReplicationMode.NONE); PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            IncSupport.createSlot(repl, slot);
            LogicalReplicationOptions o = LogicalReplicationOptions.builder(slot).publications(IncrementalExactnessTest.PUB)
                    .messages(mode == WatermarkMode.MESSAGE ? Boolean.TRUE : null).autoAcknowledge(true)
                    .statusInterval(Duration.ofMillis(200)).build();
            IncrementalSnapshots snaps = IncrementalSnapshots.create(io, rebuild);
            LogicalReplicationStream stream = repl.startLogical(o, snaps);
            await(stream.started());

            await(sql.query("ALTER SYSTEM SET synchronous_standby_names = 'ghost'"));
            await(sql.query("SELECT pg_reload_conf()"));
            await(waiter.query("SET synchronous_commit = on"));
            // The checkpointer takes the reload a moment later: until then a commit does not wait. Retried with other rows.
            int attempt = 0;
            for (; ; attempt++) {
                await(waiter.simpleQuery("BEGIN; UPDATE " + table + " SET v = 'waiter " + attempt + "', n = -n WHERE id IN " + WAITER_KEYS
                        + "; DELETE FROM " + table + " WHERE id = " + (12 + 2 * attempt) + "; INSERT INTO " + table + " VALUES ("
                        + (1 + 2 * attempt) + ", 'waiter', 0)"));
                commit = waiter.simpleQuery("COMMIT").toCompletableFuture();
                CompletableFuture<?> c = commit;
                waitUntil("the waiter's commit to wait or end", Duration.ofSeconds(10), () -> c.isDone() || syncRepWaiters(sql) > 0);
                if (!commit.isDone()) break;
                assertTrue(attempt < 20, "the commit never waited for the standby");
            }
            // The stream delivered the waiter's commit: its insert is in the rebuild.
            String inserted = Integer.toString(1 + 2 * attempt);
            waitUntil("the waiter's commit in the stream", Duration.ofSeconds(10), () -> rebuild.rowsCopy().containsKey(inserted));
            long readsBefore = chunkReadsLogged(s, table);
            if (laterCommits > 0 && laterBeforeStart) laterCommits(work, table, laterCommits, s.majorVersion(), rebuild);

            snaps.execute(t);
            waitUntil("the key tracking", Duration.ofSeconds(10), () -> rebuild.status(t, TableProgress.Status.RUNNING));
            if (laterCommits > 0 && !laterBeforeStart) laterCommits(work, table, laterCommits, s.majorVersion(), rebuild);
            if (mode != WatermarkMode.READ_ONLY) {
                // The chunk's high mark commits after its snapshot, and waits as well: the read happened during the wait.
                waitUntil("the chunk's high mark waiting", Duration.ofSeconds(10), () -> syncRepWaiters(sql) >= 2);
            }
            Thread.sleep(mode == WatermarkMode.READ_ONLY ? 3000 : 500);
            assertTrue(!commit.isDone(), "the waiter still waits");
            assertEquals(0, rebuild.progress.get(t).chunks(), "no chunk emitted while the waiter lingers: " + rebuild.progress.get(t));
            long reReads = chunkReadsLogged(s, table) - readsBefore;
            await(sql.query("ALTER SYSTEM RESET synchronous_standby_names"));
            await(sql.query("SELECT pg_reload_conf()"));
            await(commit);
            commit = null;

            waitUntil("the snapshot's end", Duration.ofSeconds(60), () -> rebuild.status(t, TableProgress.Status.COMPLETED)
                    || rebuild.status(t, TableProgress.Status.FAILED));
            assertEquals(TableProgress.Status.COMPLETED, rebuild.progress.get(t).status(), "completed: " + rebuild.progress.get(t));
            await(sql.query("INSERT INTO " + table + " VALUES (-1, 'sentinel', 0)"));
            waitUntil("the sentinel", Duration.ofSeconds(30), () -> rebuild.sentinelSeen);
            await(stream.stop());
            snaps.close();
            if (mode == WatermarkMode.READ_ONLY) {
                // A read every half second at most, after a few quicker ones: without a back-off it is one per
                // stream round trip (thousands in 3 s).
                assertTrue(reReads >= 2 && reReads <= 20, "chunk reads during a 3 s wait: " + reReads);
            }
            Map<String, String> expected = IncSupport.source(sql, table);
            Map<String, String> got = rebuild.rowsCopy();
            synchronized (rebuild) {
                assertTrue(rebuild.violations.isEmpty(), "reads that follow a newer change of their key: " + rebuild.violations);
                assertTrue(rebuild.reads >= ROWS, "the table was read: " + rebuild.reads);
            }
            assertTrue(expected.get("2").startsWith("waiter"), "the waiter's update is in the source: " + expected.get("2"));
            assertEquals(expected, got, "the table rebuilt from the stream and the reads");
        } finally {
            s.sql("postgres", "ALTER SYSTEM RESET synchronous_standby_names");
            s.sql("postgres", "SELECT pg_reload_conf()");
            if (commit != null) commit.handle((v, e) -> null).get();
        }
    }

    /**
     * A large transaction streamed in progress (streaming=on) before the table's keys were tracked,
     * committing after a chunk's snapshot: the keys of its earlier blocks are in no touch log, so
     * the chunk must be read again whatever keys it holds. The chunk's read is held by its high
     * mark waiting for the standby, so the transaction's Stream Commit arrives before the chunk
     * could be emitted; the transaction itself commits locally and leaves the proc array at once.
     */
    @Test
    void transactionStreamedBeforeTheStartCountsForEveryKeyOn18(@PgServerConfig(version = 18) PgServer s) throws Exception {
        String table = "inc_swst";
        String t = "public." + table;
        IncrementalExactnessTest.setup(s, table, ROWS);
        Rebuild rebuild = new Rebuild(table);
        try (PgConnection sql = connect(s, ReplicationMode.NONE); PgConnection big = connect(s, ReplicationMode.NONE);
             PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            s.sql("postgres", "ALTER SYSTEM SET logical_decoding_work_mem = '64kB'");
            s.sql("postgres", "SELECT pg_reload_conf()");
            IncSupport.createSlot(repl, "inc_swst18");
            LogicalReplicationOptions o = LogicalReplicationOptions.builder("inc_swst18").publications(IncrementalExactnessTest.PUB)
                    .messages(true).streaming(io.pgrepl.client.stream.StreamingMode.ON).autoAcknowledge(true)
                    .statusInterval(Duration.ofMillis(200)).build();
            IncrementalSnapshots snaps = IncrementalSnapshots.create(IncrementalOptions.of(config(s, ReplicationMode.NONE))
                    .withChunkSize(100), rebuild);
            LogicalReplicationStream stream = repl.startLogical(o, snaps);
            await(stream.started());
            await(big.simpleQuery("BEGIN; UPDATE " + table + " SET v = 'streamed ' || id, n = -n"));
            waitUntil("the transaction streamed in progress", Duration.ofSeconds(10), () -> rebuild.streamBlocks > 0);
            await(sql.query("ALTER SYSTEM SET synchronous_standby_names = 'ghost'"));
            await(sql.query("SELECT pg_reload_conf()"));

            snaps.execute(t);
            waitUntil("the key tracking", Duration.ofSeconds(10), () -> rebuild.status(t, TableProgress.Status.RUNNING));
            waitUntil("the chunk's high mark waiting", Duration.ofSeconds(10), () -> syncRepWaiters(sql) >= 1);
            await(big.simpleQuery("SET LOCAL synchronous_commit = local; COMMIT"));
            waitUntil("the Stream Commit", Duration.ofSeconds(10), () -> String.valueOf(rebuild.rowsCopy().get("2")).startsWith("streamed"));
            await(sql.query("ALTER SYSTEM RESET synchronous_standby_names"));
            await(sql.query("SELECT pg_reload_conf()"));

            waitUntil("the snapshot's end", Duration.ofSeconds(60), () -> rebuild.status(t, TableProgress.Status.COMPLETED)
                    || rebuild.status(t, TableProgress.Status.FAILED));
            assertEquals(TableProgress.Status.COMPLETED, rebuild.progress.get(t).status(), "completed: " + rebuild.progress.get(t));
            await(sql.query("INSERT INTO " + table + " VALUES (-1, 'sentinel', 0)"));
            waitUntil("the sentinel", Duration.ofSeconds(30), () -> rebuild.sentinelSeen);
            await(stream.stop());
            snaps.close();
            synchronized (rebuild) {
                assertTrue(rebuild.violations.isEmpty(), "reads that follow a newer change of their key: " + rebuild.violations);
                assertTrue(rebuild.streamedCommits == 1 && rebuild.reads >= ROWS, "streamed, then read: " + rebuild.reads);
            }
            assertEquals(IncSupport.source(sql, table), rebuild.rowsCopy(), "the table rebuilt from the stream and the reads");
        } finally {
            s.sql("postgres", "ALTER SYSTEM RESET synchronous_standby_names");
            s.sql("postgres", "ALTER SYSTEM RESET logical_decoding_work_mem");
            s.sql("postgres", "SELECT pg_reload_conf()");
        }
    }

    /** Commits that do not wait for the standby, {@code n} of them, delivered by the stream before this returns. */
    private static void laterCommits(PgConnection work, String table, int n, int major, Rebuild rebuild) throws Exception {
        await(work.query("SET synchronous_commit = local"));
        if (major >= 11) {
            await(work.query("DO $$ BEGIN FOR i IN 1.." + n + " LOOP UPDATE " + table + " SET n = n + 1 WHERE id = "
                    + "2 * (500 + i % 400); COMMIT; END LOOP; END $$"));
        } else {
            for (int i = 1; i <= n; i++) {
                await(work.query("UPDATE " + table + " SET n = n + 1 WHERE id = " + 2 * (500 + i % 400)));
            }
        }
        await(work.query("INSERT INTO " + table + " VALUES (-3, 'after the later commits', 0)"));
        waitUntil("the later commits in the stream", Duration.ofSeconds(20), () -> rebuild.rowsCopy().containsKey("-3"));
    }

    private static int syncRepWaiters(PgConnection sql) {
        try {
            return Integer.parseInt(await(sql.query("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'"))
                    .singleRow().get(0));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /** The chunk reads of {@code table} the server logged (log_statement of the read-only role; 0 for others). */
    private static long chunkReadsLogged(PgServer s, String table) throws Exception {
        String log = new String(Files.readAllBytes(s.logFile()), java.nio.charset.StandardCharsets.ISO_8859_1);
        return log.lines().filter(l -> l.contains("REPEATABLE READ READ ONLY") && l.contains(table)).count();
    }
}
