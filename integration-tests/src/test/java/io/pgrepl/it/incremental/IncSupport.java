package io.pgrepl.it.incremental;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.replication.SnapshotMode;
import io.pgrepl.codec.Lsn;
import io.pgrepl.testkit.PgServer;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Blocking helpers for the incremental snapshot tests (test thread only). */
final class IncSupport {
    private IncSupport() {}

    static <T> T await(CompletionStage<T> stage) throws Exception {
        try {
            return stage.toCompletableFuture().get(120, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception ex) throw ex;
            throw e;
        }
    }

    static ConnectionConfig config(PgServer s, ReplicationMode mode) {
        return ConnectionConfig.builder().host(s.host()).port(s.port()).user(s.superuser().name())
                .password(s.superuser().password()).database("postgres").sslMode(SslMode.DISABLE).replication(mode)
                .connectTimeout(Duration.ofSeconds(30)).build();
    }

    static PgConnection connect(PgServer s, ReplicationMode mode) throws Exception {
        return await(PgConnection.connect(config(s, mode)));
    }

    static void createSlot(PgConnection repl, String slot) throws Exception {
        await(repl.createReplicationSlot(CreateSlotOptions.logical(slot, "pgoutput").withSnapshot(SnapshotMode.NOTHING)));
    }

    static long confirmedFlush(PgConnection sql, String slot) throws Exception {
        String v = await(sql.query("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '" + slot + "'"))
                .singleRow().get(0);
        return v == null ? 0 : Lsn.parse(v);
    }

    static void waitUntil(String what, Duration timeout, BooleanSupplier cond) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("timed out waiting for " + what);
            Thread.sleep(20);
        }
    }

    /** The table as the server has it now: id to {@code v|n}, the way {@link Rebuild} keeps it. */
    static Map<String, String> source(PgConnection sql, String table) throws Exception {
        Map<String, String> m = new HashMap<>();
        for (io.pgrepl.client.Row r : await(sql.query("SELECT id, v, n FROM " + table)).rows()) {
            m.put(r.get(0), (r.isNull(1) ? "\\N" : r.get(1)) + "|" + (r.isNull(2) ? "\\N" : r.get(2)));
        }
        return m;
    }
}
