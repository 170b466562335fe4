package io.pgrepl.it.faces;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.Waits;

import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/** Blocking helpers for the API-face tests (test thread only). */
final class FacesSupport {
    private FacesSupport() {}

    static <T> T await(CompletionStage<T> stage) throws Exception {
        try {
            return stage.toCompletableFuture().get(120, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception ex) throw ex;
            throw e;
        }
    }

    static PgConnection connect(PgServer s, ReplicationMode mode) throws Exception {
        return await(PgConnection.connect(ConnectionConfig.builder().host(s.host()).port(s.port())
                .user(s.superuser().name()).password(s.superuser().password()).database("postgres")
                .sslMode(SslMode.DISABLE).replication(mode).build()));
    }

    /** Fresh table {@code name(id int primary key, v text)}, publication {@code name_pub}, pgoutput slot {@code name}. */
    static void setup(PgServer s, String name) throws Exception {
        s.sql("postgres", "DROP TABLE IF EXISTS " + name + "; CREATE TABLE " + name + " (id int PRIMARY KEY, v text);"
                + " DROP PUBLICATION IF EXISTS " + name + "_pub; CREATE PUBLICATION " + name + "_pub FOR TABLE " + name);
        s.sql("postgres", "SELECT pg_create_logical_replication_slot('" + name + "', 'pgoutput')");
    }

    static void dropSlot(PgServer s, String slot) throws Exception {
        s.dropReplicationSlot(slot);
    }

    static LogicalReplicationOptions.Builder options(String name) {
        return LogicalReplicationOptions.builder(name).publications(name + "_pub").statusInterval(Duration.ofMillis(500));
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
