package io.pgrepl.it.slot;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.LogicalStreamHandler;
import io.pgrepl.client.stream.ReconnectPolicy;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.Waits;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/** Blocking helpers for the slot tests (test thread only). */
final class SlotSupport {
    static final Duration WAIT = Duration.ofSeconds(60);
    /** Fast retries, never giving up on transient ends: only the typed, non-transient errors may end a stream. */
    static final ReconnectPolicy FAST = new ReconnectPolicy(Duration.ofMillis(50), Duration.ofMillis(400), 2, 0.5, 0);

    private SlotSupport() {}

    /** Records inserted first-column values and connections. */
    static final class Handler implements LogicalStreamHandler {
        final List<String> inserts = new CopyOnWriteArrayList<>();
        final AtomicInteger started = new AtomicInteger();

        @Override
        public void onStarted(LogicalReplicationStream s) {
            started.incrementAndGet();
        }

        @Override
        public void onInsert(InsertMessage m) {
            inserts.add(m.newTuple().text(0));
        }
    }

    static ConnectionConfig replication(PgServer s) {
        return ConnectionConfig.builder().host(s.host()).port(s.port()).user(s.replicationUser().name())
                .password(s.replicationUser().password()).database("postgres").sslMode(SslMode.DISABLE)
                .replication(ReplicationMode.DATABASE).build();
    }

    static PgConnection sql(PgServer s) throws Exception {
        return await(PgConnection.connect(ConnectionConfig.builder().host(s.host()).port(s.port())
                .user(s.superuser().name()).password(s.superuser().password()).database("postgres")
                .sslMode(SslMode.DISABLE).build()));
    }

    static LogicalReplicationOptions options(String slot, String publication) {
        return LogicalReplicationOptions.builder(slot).publications(publication).statusInterval(Duration.ofMillis(200))
                .confirmIdleKeepalives(false).build();
    }

    /** A table {@code t(id int PRIMARY KEY)}, a publication {@code t_pub} of it and a pgoutput slot {@code t}. */
    static void setUp(PgServer s, String t) throws Exception {
        s.sql("postgres", "CREATE TABLE " + t + " (id int PRIMARY KEY); CREATE PUBLICATION " + t + "_pub FOR TABLE " + t);
        s.sql("postgres", "SELECT pg_create_logical_replication_slot('" + t + "', 'pgoutput')");
    }

    static String value(PgConnection sql, String query) throws Exception {
        return await(sql.query(query)).singleRow().get(0);
    }

    static <T> T await(CompletionStage<T> stage) throws Exception {
        try {
            return stage.toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception ex) throw ex;
            throw e;
        }
    }

    static Throwable failure(CompletionStage<?> stage) throws Exception {
        try {
            stage.toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("expected the stage to fail");
    }

    static void waitUntil(String what, BooleanSupplier cond) throws InterruptedException {
        // Returns as soon as cond holds: the shared ceiling costs nothing unless the machine is loaded.
        long deadline = System.nanoTime() + Waits.atLeastCeiling(WAIT).toNanos();
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("timed out waiting for " + what);
            Thread.sleep(20);
        }
    }
}
