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
import io.pgrepl.codec.Lsn;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgServerConfig;
import io.pgrepl.testkit.junit.PgTest;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Prepared transactions (two_phase slot and stream) whose COMMIT PREPARED comes after a chunk's
 * snapshot and before the chunk is emitted: the chunk read the keys' values from before the
 * transaction, which the stream applied before the chunk, so those rows must not be emitted. The
 * chunk is held by its high mark waiting for a synchronous standby that never comes ({@code
 * synchronous_standby_names = 'ghost'}) while the prepared transaction commits locally. What the
 * engine must know about the transaction differs:
 * <ul>
 *   <li>its PREPARE was delivered before the table's keys were tracked (which keys it changed is
 *       unknown: it counts for every key);</li>
 *   <li>its PREPARE was delivered and confirmed while the keys were tracked, then the stream
 *       reconnected: the server does not send that PREPARE again, only its COMMIT PREPARED;</li>
 *   <li>it was prepared before the engine started (a process restart): the engine never saw its
 *       PREPARE, and only the server's {@code pg_prepared_xacts} tells.</li>
 * </ul>
 */
@PgTest
class IncrementalPreparedTest {
    private static final int ROWS = 1000;
    /** Ids the prepared transaction changes: all in the first chunk. */
    private static final String KEYS = "(2, 4, 6, 8, 10)";

    private enum Case { SEEN_BEFORE_TRACKING, RECONNECT_AFTER_PREPARE, RESENT_AFTER_RECONNECT, PREPARED_BEFORE_THE_ENGINE }

    @Test
    void preparedBeforeTrackingCountsForEveryKeyOn18(
            @PgServerConfig(version = 18, settings = "max_prepared_transactions=10") PgServer s) throws Exception {
        run(s, "inc_2pa", Case.SEEN_BEFORE_TRACKING);
    }

    @Test
    void preparedBeforeTrackingCountsForEveryKeyOn15(
            @PgServerConfig(version = 15, settings = "max_prepared_transactions=10") PgServer s) throws Exception {
        run(s, "inc_2pa", Case.SEEN_BEFORE_TRACKING);
    }

    @Test
    void preparedChangesSurviveAReconnectOn18(
            @PgServerConfig(version = 18, settings = "max_prepared_transactions=10") PgServer s) throws Exception {
        run(s, "inc_2pb", Case.RECONNECT_AFTER_PREPARE);
    }

    @Test
    void preparedChangesSurviveAReconnectOn15(
            @PgServerConfig(version = 15, settings = "max_prepared_transactions=10") PgServer s) throws Exception {
        run(s, "inc_2pb", Case.RECONNECT_AFTER_PREPARE);
    }

    /** Not confirmed before the reconnect: the PREPARE comes again, and its changes, held already, are held once. */
    @Test
    void preparedChangesSentAgainAfterAReconnectOn18(
            @PgServerConfig(version = 18, settings = "max_prepared_transactions=10") PgServer s) throws Exception {
        run(s, "inc_2pd", Case.RESENT_AFTER_RECONNECT);
    }

    @Test
    void preparedBeforeTheEngineStartedCountsForEveryKeyOn18(
            @PgServerConfig(version = 18, settings = "max_prepared_transactions=10") PgServer s) throws Exception {
        run(s, "inc_2pc", Case.PREPARED_BEFORE_THE_ENGINE);
    }

    @Test
    void preparedBeforeTheEngineStartedCountsForEveryKeyOn15(
            @PgServerConfig(version = 15, settings = "max_prepared_transactions=10") PgServer s) throws Exception {
        run(s, "inc_2pc", Case.PREPARED_BEFORE_THE_ENGINE);
    }

    private static void run(PgServer s, String table, Case c) throws Exception {
        String t = "public." + table;
        String slot = table + s.majorVersion();
        String gid = slot + "_g";
        IncrementalExactnessTest.setup(s, table, ROWS);
        s.sql("postgres", "SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput', false, true)");
        // The application's rebuilt table, kept across streams and engines.
        Rebuild rebuild = new Rebuild(table);
        IncrementalOptions io = IncrementalOptions.of(config(s, ReplicationMode.NONE)).withChunkSize(100);
        LogicalReplicationOptions o = LogicalReplicationOptions.builder(slot).publications(IncrementalExactnessTest.PUB)
                .messages(true).twoPhase(true).autoAcknowledge(true).statusInterval(Duration.ofMillis(100)).build();
        // The first stream of RESENT_AFTER_RECONNECT confirms nothing: the next one starts before the PREPARE.
        LogicalReplicationOptions first = c == Case.RESENT_AFTER_RECONNECT ? o.toBuilder().autoAcknowledge(false).build() : o;
        try (PgConnection sql = connect(s, ReplicationMode.NONE); PgConnection prep = connect(s, ReplicationMode.NONE)) {
            // Neither the PREPARE nor the COMMIT PREPARED waits for the standby that never comes.
            await(prep.query("SET synchronous_commit = local"));
            IncrementalSnapshots snaps = IncrementalSnapshots.create(io, rebuild);
            PgConnection repl = connect(s, ReplicationMode.DATABASE);
            LogicalReplicationStream stream = repl.startLogical(first, snaps);
            await(stream.started());
            boolean reconnect = c == Case.RECONNECT_AFTER_PREPARE || c == Case.RESENT_AFTER_RECONNECT;
            if (reconnect) {
                // Tracked and held before the PREPARE: its changes are held by key.
                snaps.pause();
                snaps.execute(t);
                waitUntil("the key tracking", Duration.ofSeconds(10), () -> rebuild.status(t, TableProgress.Status.PAUSED));
            }
            await(prep.simpleQuery("BEGIN; UPDATE " + table + " SET v = 'prepared ' || id, n = -n WHERE id IN " + KEYS
                    + "; PREPARE TRANSACTION '" + gid + "'"));
            long prepared = Lsn.parse(await(sql.query("SELECT pg_current_wal_insert_lsn()::text")).singleRow().get(0));
            waitUntil("the PREPARE in the stream", Duration.ofSeconds(10), () -> rebuild.prepares == 1);
            if (c != Case.SEEN_BEFORE_TRACKING) {
                // Confirmed: a new stream does not send the PREPARE again, only the COMMIT PREPARED.
                if (c == Case.RESENT_AFTER_RECONNECT) {
                    Thread.sleep(300); // a few status updates
                    assertTrue(!confirmedPast(sql, slot, prepared), "the PREPARE not confirmed");
                } else {
                    waitUntil("the PREPARE confirmed", Duration.ofSeconds(10), () -> confirmedPast(sql, slot, prepared));
                }
                await(stream.stop());
                repl.close();
                if (c == Case.PREPARED_BEFORE_THE_ENGINE) {
                    snaps.close();
                    snaps = IncrementalSnapshots.create(io, rebuild);
                }
                waitUntil("the slot released", Duration.ofSeconds(10), () -> slotInactive(sql, slot));
                repl = connect(s, ReplicationMode.DATABASE);
                stream = repl.startLogical(o, snaps);
                await(stream.started());
                long prepares = c == Case.RESENT_AFTER_RECONNECT ? 2 : 1;
                waitUntil("the PREPARE sent again, or not", Duration.ofSeconds(10), () -> rebuild.prepares == prepares);
            }
            await(sql.query("ALTER SYSTEM SET synchronous_standby_names = 'ghost'"));
            await(sql.query("SELECT pg_reload_conf()"));
            commitsWaitForTheStandby(s, sql);
            if (reconnect) snaps.resume();
            else snaps.execute(t);
            waitUntil("the key tracking", Duration.ofSeconds(10), () -> rebuild.status(t, TableProgress.Status.RUNNING));
            waitUntil("a chunk's high mark waiting", Duration.ofSeconds(10), () -> syncRepWaiters(sql) >= 1);
            assertEquals(0, rebuild.progress.get(t).chunks(), "no chunk emitted before the wait: " + rebuild.progress.get(t));
            await(prep.query("COMMIT PREPARED '" + gid + "'"));
            waitUntil("the COMMIT PREPARED in the stream", Duration.ofSeconds(10),
                    () -> String.valueOf(rebuild.rowsCopy().get("2")).startsWith("prepared"));
            await(sql.query("ALTER SYSTEM RESET synchronous_standby_names"));
            await(sql.query("SELECT pg_reload_conf()"));

            waitUntil("the snapshot's end", Duration.ofSeconds(30), () -> rebuild.status(t, TableProgress.Status.COMPLETED)
                    || rebuild.status(t, TableProgress.Status.FAILED));
            assertEquals(TableProgress.Status.COMPLETED, rebuild.progress.get(t).status(), "completed: " + rebuild.progress.get(t));
            await(sql.query("INSERT INTO " + table + " VALUES (-1, 'sentinel', 0)"));
            waitUntil("the sentinel", Duration.ofSeconds(10), () -> rebuild.sentinelSeen);
            await(stream.stop());
            repl.close();
            snaps.close();
            synchronized (rebuild) {
                assertTrue(rebuild.violations.isEmpty(), "reads that follow a newer change of their key: " + rebuild.violations);
                // The chunk's rows of the transaction's keys may be dropped (the stream has them), or the chunk read again.
                assertTrue(rebuild.prepares == (c == Case.RESENT_AFTER_RECONNECT ? 2 : 1) && rebuild.commitsPrepared == 1 && rebuild.reads >= ROWS - 5,
                        "one PREPARE, one COMMIT PREPARED, then the table read: " + rebuild.prepares + ", " + rebuild.commitsPrepared
                                + ", " + rebuild.reads);
            }
            assertEquals(IncSupport.source(sql, table), rebuild.rowsCopy(), "the table rebuilt from the stream and the reads");
        } finally {
            s.sql("postgres", "ALTER SYSTEM RESET synchronous_standby_names");
            s.sql("postgres", "SELECT pg_reload_conf()");
            try {
                // Left prepared by a failure, it would hold its rows' locks for the next test on this server.
                s.sql("postgres", "ROLLBACK PREPARED '" + gid + "'");
            } catch (Exception notLeft) {
                // committed, as it should be
            }
            s.sql("postgres", "SELECT pg_catalog.pg_drop_replication_slot(slot_name) FROM pg_catalog.pg_replication_slots"
                    + " WHERE slot_name = '" + slot + "' AND NOT active");
        }
    }

    private static boolean confirmedPast(PgConnection sql, String slot, long lsn) {
        try {
            return Long.compareUnsigned(IncSupport.confirmedFlush(sql, slot), lsn) >= 0;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static boolean slotInactive(PgConnection sql, String slot) {
        try {
            return "f".equals(await(sql.query("SELECT active FROM pg_replication_slots WHERE slot_name = '" + slot + "'"))
                    .singleRow().get(0));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    /**
     * Returns once a commit waits for the standby: the checkpointer takes the reload a moment
     * later, and a chunk whose high mark does not wait would be emitted before the COMMIT PREPARED.
     * The probe's wait is cancelled (its commit stays) so that it lingers in no snapshot.
     */
    private static void commitsWaitForTheStandby(PgServer s, PgConnection sql) throws Exception {
        try (PgConnection probe = connect(s, ReplicationMode.NONE)) {
            String pid = await(probe.query("SELECT pg_backend_pid()")).singleRow().get(0);
            // A commit waits only if its transaction wrote WAL: a row in a table no publication has.
            await(probe.query("CREATE TABLE IF NOT EXISTS standby_probe (n int)"));
            await(probe.query("SET synchronous_commit = on")); // the test kit's servers run with it off
            for (int attempt = 0; ; attempt++) {
                java.util.concurrent.CompletableFuture<?> commit = probe.simpleQuery("INSERT INTO standby_probe VALUES (1)").toCompletableFuture();
                waitUntil("the probe's commit to wait or end", Duration.ofSeconds(10), () -> commit.isDone() || syncRepWaiters(sql) > 0);
                if (!commit.isDone()) {
                    await(sql.query("SELECT pg_cancel_backend(" + pid + ")"));
                    commit.handle((v, e) -> null).get(10, java.util.concurrent.TimeUnit.SECONDS);
                    return;
                }
                assertTrue(attempt < 100, "a commit never waited for the standby");
                Thread.sleep(20);
            }
        }
    }

    private static int syncRepWaiters(PgConnection sql) {
        try {
            return Integer.parseInt(await(sql.query("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'"))
                    .singleRow().get(0));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
