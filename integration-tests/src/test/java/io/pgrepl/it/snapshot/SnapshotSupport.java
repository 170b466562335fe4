package io.pgrepl.it.snapshot;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.Waits;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Blocking helpers for the snapshot tests, full and incremental (test thread only). */
public final class SnapshotSupport {
    private SnapshotSupport() {}

    public static <T> T await(CompletionStage<T> stage) throws Exception {
        try {
            return stage.toCompletableFuture().get(120, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception ex) throw ex;
            throw e;
        }
    }

    static Throwable failure(CompletionStage<?> stage) throws Exception {
        try {
            stage.toCompletableFuture().get(120, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("expected the stage to fail");
    }

    public static ConnectionConfig config(PgServer s, ReplicationMode mode) {
        return ConnectionConfig.builder().host(s.host()).port(s.port()).user(s.superuser().name())
                .password(s.superuser().password()).database("postgres").sslMode(SslMode.DISABLE).replication(mode)
                .connectTimeout(Duration.ofSeconds(30)).build();
    }

    public static PgConnection connect(PgServer s, ReplicationMode mode) throws Exception {
        return await(PgConnection.connect(config(s, mode)));
    }

    static String scalar(PgConnection c, String sql) throws Exception {
        return await(c.query(sql)).singleRow().get(0);
    }

    public static void waitUntil(BooleanSupplier cond, Duration max, String what) throws InterruptedException {
        // Returns as soon as cond holds: the shared ceiling costs nothing unless the machine is loaded.
        long deadline = System.nanoTime() + Waits.atLeastCeiling(max).toNanos();
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("timed out waiting for " + what);
            Thread.sleep(20);
        }
    }

    static String hex(byte[] b) {
        return b == null ? null : HexFormat.of().formatHex(b);
    }

    /** Sessions of the snapshot workers (application_name pgrepl-snapshot) still alive. */
    static int workerSessions(PgConnection sql) throws Exception {
        return Integer.parseInt(scalar(sql, "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pgrepl-snapshot'"));
    }

    static boolean slotExists(PgConnection sql, String slot) throws Exception {
        return !"0".equals(scalar(sql, "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + slot + "'"));
    }
}
