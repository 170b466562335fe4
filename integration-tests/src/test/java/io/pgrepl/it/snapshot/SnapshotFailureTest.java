package io.pgrepl.it.snapshot;

import static io.pgrepl.it.snapshot.SnapshotSupport.await;
import static io.pgrepl.it.snapshot.SnapshotSupport.config;
import static io.pgrepl.it.snapshot.SnapshotSupport.connect;
import static io.pgrepl.it.snapshot.SnapshotSupport.failure;
import static io.pgrepl.it.snapshot.SnapshotSupport.slotExists;
import static io.pgrepl.it.snapshot.SnapshotSupport.workerSessions;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.PgException;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.replication.SnapshotMode;
import io.pgrepl.client.snapshot.InitialSnapshot;
import io.pgrepl.client.snapshot.InitialSnapshotMode;
import io.pgrepl.client.snapshot.SnapshotException;
import io.pgrepl.client.snapshot.SnapshotOptions;
import io.pgrepl.client.snapshot.SnapshotResult;
import io.pgrepl.client.snapshot.SnapshotTable;
import io.pgrepl.client.snapshot.SnapshotWarning;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgServerConfig;
import io.pgrepl.testkit.junit.PgTest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * Refusals and failures: each leaves no worker session (pg_stat_activity), no slot unless asked,
 * and a re-run works. Sessions that act on the server from inside a handler callback run on their
 * own event loop group, so they never wait behind the callback that waits for them.
 */
@PgTest
@PgServerConfig(version = 18)
class SnapshotFailureTest {
    private static final EventLoopGroup SIDE = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());

    @AfterAll
    static void shutdown() {
        SIDE.shutdownGracefully(0, 1, java.util.concurrent.TimeUnit.SECONDS);
    }

    private static PgConnection side(PgServer s) throws Exception {
        return await(PgConnection.connect(config(s, ReplicationMode.NONE).toBuilder().eventLoopGroup(SIDE).build()));
    }

    private static SnapshotOptions options(String slot, String pub) {
        LogicalReplicationOptions stream = LogicalReplicationOptions.builder(slot).publications(pub).build();
        // permanent, asked for: these tests check what happens to a permanent slot on failure
        return SnapshotOptions.of(stream).withWorkers(2).withUnitPages(8)
                .withSlot(SnapshotOptions.of(stream).slot().withTemporary(false));
    }

    private static void table(PgServer s, String name, int rows) throws Exception {
        s.sql("postgres", "DROP PUBLICATION IF EXISTS " + name + "_pub; DROP TABLE IF EXISTS " + name + ";"
                + " CREATE TABLE " + name + " (id int PRIMARY KEY, v text);"
                + " INSERT INTO " + name + " SELECT g, md5(g::text) FROM generate_series(1, " + rows + ") g;"
                + " CREATE PUBLICATION " + name + "_pub FOR TABLE " + name);
    }

    private static void noWorkersLeft(PgConnection sql) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (workerSessions(sql) != 0) {
            if (System.nanoTime() > deadline) throw new AssertionError("worker sessions left in pg_stat_activity");
            Thread.sleep(50);
        }
    }

    @Test
    void refusedWithoutCreatingTheSlot() {
        SnapshotException e = assertThrows(SnapshotException.class,
                () -> SnapshotOptions.requireSlotCreation(InitialSnapshotMode.INITIAL, false));
        assertEquals(SnapshotException.Kind.SLOT_NOT_CREATED, e.kind());
        SnapshotOptions.requireSlotCreation(InitialSnapshotMode.NEVER, false);
        SnapshotOptions o = options("x", "p");
        SnapshotException e2 = assertThrows(SnapshotException.class, () -> o.withSlot(o.slot().withSnapshot(SnapshotMode.NOTHING)));
        assertEquals(SnapshotException.Kind.SLOT_NOT_CREATED, e2.kind());
    }

    @Test
    void existingSlotIsRefusedAndLeftAlone(PgServer s) throws Exception {
        table(s, "fx", 10);
        AtomicBoolean called = new AtomicBoolean();
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE); PgConnection sql = connect(s, ReplicationMode.NONE)) {
            await(repl.createReplicationSlot(CreateSlotOptions.logical("fx_slot", "pgoutput").withSnapshot(SnapshotMode.NOTHING)));
            Throwable t = failure(InitialSnapshot.copy(repl, options("fx_slot", "fx_pub"), (row, lsn) -> called.set(true)));
            SnapshotException e = assertInstanceOf(SnapshotException.class, t);
            assertEquals(SnapshotException.Kind.SLOT_EXISTS, e.kind());
            assertTrue(e.getMessage().contains("fx_slot"), e.getMessage());
            assertFalse(called.get());
            assertTrue(slotExists(sql, "fx_slot"), "the existing slot is untouched");
            assertEquals(0, workerSessions(sql));
            await(repl.dropReplicationSlot("fx_slot", false));
        }
    }

    @Test
    void workerKilledMidCopyFailsCleanlyAndReRunWorks(PgServer s) throws Exception {
        table(s, "fk", 20000);
        AtomicInteger reads = new AtomicInteger();
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE); PgConnection sql = connect(s, ReplicationMode.NONE);
             PgConnection killer = side(s)) {
            Throwable t = failure(InitialSnapshot.copy(repl, options("fk_slot", "fk_pub"), (row, lsn) -> {
                if (reads.incrementAndGet() == 1) {
                    try {
                        await(killer.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'pgrepl-snapshot'"));
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                }
            }));
            SnapshotException e = assertInstanceOf(SnapshotException.class, t, String.valueOf(t));
            assertEquals(SnapshotException.Kind.CONNECTION_LOST, e.kind(), e.getMessage());
            assertEquals("public.fk", e.table());
            assertTrue(reads.get() < 20000, "failed before the end");
            assertFalse(slotExists(sql, "fk_slot"), "the permanent slot created for the snapshot is dropped");
            noWorkersLeft(sql);
            SnapshotResult again = await(InitialSnapshot.copy(repl, options("fk_slot", "fk_pub"), (row, lsn) -> { }));
            assertEquals(20000, again.rows());
            noWorkersLeft(sql);
            assertTrue(slotExists(sql, "fk_slot"));
            await(repl.dropReplicationSlot("fk_slot", false));
        }
    }

    @Test
    void handlerFailureKeepsThePermanentSlotWhenAsked(PgServer s) throws Exception {
        table(s, "fh", 100);
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE); PgConnection sql = connect(s, ReplicationMode.NONE)) {
            Throwable t = failure(InitialSnapshot.copy(repl, options("fh_slot", "fh_pub").withKeepSlotOnFailure(true), (row, lsn) -> {
                throw new IllegalStateException("target refused row");
            }));
            SnapshotException e = assertInstanceOf(SnapshotException.class, t);
            assertEquals(SnapshotException.Kind.HANDLER_FAILED, e.kind());
            assertEquals("target refused row", e.getCause().getMessage());
            noWorkersLeft(sql);
            assertTrue(slotExists(sql, "fh_slot"), "kept as asked");
            await(repl.dropReplicationSlot("fh_slot", false));
        }
    }

    @Test
    void lockWaitSurfacesWithTheTableAfterLockTimeout(PgServer s) throws Exception {
        table(s, "fl", 5000);
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE); PgConnection sql = connect(s, ReplicationMode.NONE);
             PgConnection locker = side(s)) {
            SnapshotOptions o = options("fl_slot", "fl_pub").withSlot(options("fl_slot", "fl_pub").slot().withTemporary(true))
                    .withWorkerConfig(config(s, ReplicationMode.NONE).toBuilder().applicationName("pgrepl-snapshot")
                            .startupParameter("lock_timeout", "500").build());
            Throwable t = failure(InitialSnapshot.copy(repl, o, new Collector() {
                @Override
                public void onStart(long lsn, List<SnapshotTable> tables) {
                    try {
                        await(locker.simpleQuery("BEGIN; LOCK TABLE fl IN ACCESS EXCLUSIVE MODE"));
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                }
            }));
            SnapshotException e = assertInstanceOf(SnapshotException.class, t, String.valueOf(t));
            assertEquals(SnapshotException.Kind.LOCK_TIMEOUT, e.kind());
            assertEquals("public.fl", e.table());
            assertTrue(e.getMessage().contains("public.fl"), e.getMessage());
            assertEquals("55P03", assertInstanceOf(PgException.class, e.getCause()).sqlState());
            await(locker.query("ROLLBACK"));
            noWorkersLeft(sql);
            assertFalse(slotExists(sql, "fl_slot"), "the temporary slot is gone");
        }
    }

    @Test
    void tableDroppedDuringTheSnapshotIsSkipped(PgServer s) throws Exception {
        s.sql("postgres", "DROP PUBLICATION IF EXISTS fd_pub; DROP TABLE IF EXISTS fd_keep, fd_gone;"
                + " CREATE TABLE fd_keep (id int PRIMARY KEY); INSERT INTO fd_keep SELECT generate_series(1, 50);"
                + " CREATE TABLE fd_gone (id int PRIMARY KEY); INSERT INTO fd_gone VALUES (1);"
                + " CREATE PUBLICATION fd_pub FOR TABLE fd_keep, fd_gone");
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE); PgConnection dropper = side(s)) {
            Collector c = new Collector() {
                @Override
                public void onStart(long lsn, List<SnapshotTable> tables) {
                    super.onStart(lsn, tables);
                    try {
                        await(dropper.query("DROP TABLE fd_gone"));
                    } catch (Exception e) {
                        throw new RuntimeException(e);
                    }
                }
            };
            SnapshotResult r = await(InitialSnapshot.copy(repl, options("fd_slot", "fd_pub")
                    .withSlot(options("fd_slot", "fd_pub").slot().withTemporary(true)), c));
            assertEquals(List.of("public.fd_keep"), r.tables());
            assertEquals(50, r.rows());
            assertEquals(List.of(new SnapshotWarning(SnapshotWarning.Kind.TABLE_DROPPED, "public.fd_gone",
                    "table public.fd_gone was dropped during the snapshot: skipped")), c.warnings);
            assertNull(c.rows.get("public.fd_gone"));
        }
    }

}
