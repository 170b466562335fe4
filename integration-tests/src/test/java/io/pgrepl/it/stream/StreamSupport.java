package io.pgrepl.it.stream;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.replication.SnapshotMode;
import io.pgrepl.codec.Lsn;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.Waits;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Blocking helpers for the stream tests (test thread only). */
final class StreamSupport {
    private StreamSupport() {}

    static <T> T await(CompletionStage<T> stage) throws Exception {
        try {
            return stage.toCompletableFuture().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception ex) throw ex;
            throw e;
        }
    }

    static Throwable failure(CompletionStage<?> stage) throws Exception {
        try {
            stage.toCompletableFuture().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("expected the stage to fail");
    }

    static PgConnection connect(PgServer s, ReplicationMode mode) throws Exception {
        return await(PgConnection.connect(ConnectionConfig.builder().host(s.host()).port(s.port())
                .user(s.superuser().name()).password(s.superuser().password()).database("postgres")
                .sslMode(SslMode.DISABLE).replication(mode).build()));
    }

    static void createLogicalSlot(PgConnection repl, String slot, boolean twoPhase) throws Exception {
        CreateSlotOptions o = CreateSlotOptions.logical(slot, "pgoutput").withSnapshot(SnapshotMode.NOTHING);
        if (twoPhase) o = o.withTwoPhase(true);
        await(repl.createReplicationSlot(o));
    }

    /** confirmed_flush_lsn of a slot, via a plain SQL connection. */
    static long confirmedFlush(PgConnection sql, String slot) throws Exception {
        String v = await(sql.query("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '" + slot + "'"))
                .singleRow().get(0);
        return v == null ? 0 : Lsn.parse(v);
    }

    static long currentWal(PgConnection sql, int major) throws Exception {
        return Lsn.parse(await(sql.query(major >= 10 ? "SELECT pg_current_wal_lsn()" : "SELECT pg_current_xlog_location()"))
                .singleRow().get(0));
    }

    /** The pid of the walsender using {@code slot}, or 0 while the slot is inactive. */
    static long walsenderPid(PgConnection sql, String slot) throws Exception {
        String v = await(sql.query("SELECT active_pid FROM pg_replication_slots WHERE slot_name = '" + slot + "'"))
                .singleRow().get(0);
        return v == null ? 0 : Long.parseLong(v);
    }

    /** Drops a slot once its (possibly dying) walsender let go of it. */
    static void dropWhenInactive(PgServer s, String slot) throws Exception {
        s.dropReplicationSlot(slot);
    }

    static String serverLog(PgServer s) throws java.io.IOException {
        return java.nio.file.Files.readString(s.logFile());
    }

    static void waitUntil(String what, Duration timeout, BooleanSupplier cond) throws InterruptedException {
        // Returns as soon as cond holds: the shared ceiling costs nothing unless the machine is loaded.
        long deadline = System.nanoTime() + Waits.atLeastCeiling(timeout).toNanos();
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("timed out waiting for " + what);
            Thread.sleep(20);
        }
    }
}
