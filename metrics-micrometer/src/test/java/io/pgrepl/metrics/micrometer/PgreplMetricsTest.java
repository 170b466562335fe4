package io.pgrepl.metrics.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.replication.SnapshotMode;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.LogicalStreamHandler;
import io.pgrepl.client.stream.ReconnectPolicy;
import io.pgrepl.client.stream.ReconnectingLogicalStream;
import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.CommitMessage;
import io.pgrepl.codec.replication.XLogData;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.Waits;
import io.pgrepl.testkit.junit.PgTest;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Test;

/** Meters bound to live streams on a real PostgreSQL (the kit's default major). */
@PgTest
class PgreplMetricsTest {
    private static final Duration WAIT = Waits.CEILING;

    /** Counts what the application sees, independently of the stream's own counters. */
    static final class CountingHandler implements LogicalStreamHandler {
        volatile long messages;
        volatile long bytes;
        volatile long commits;
        volatile long maxWalStart;
        volatile long lastCommitEnd;

        @Override
        public void onXLogData(XLogData header) {
            messages++;
            bytes += header.dataLength();
            maxWalStart = Lsn.max(maxWalStart, header.walStart());
        }

        @Override
        public void onCommit(CommitMessage m) {
            commits++;
            lastCommitEnd = m.endLsn();
        }
    }

    @Test
    void metersFollowALiveStreamAndGoAwayOnClose(PgServer s) throws Exception {
        s.sql("postgres", "CREATE TABLE mm_t (id int PRIMARY KEY, v text); CREATE PUBLICATION mm_pub FOR TABLE mm_t");
        MeterRegistry registry = new SimpleMeterRegistry();
        CountingHandler h = new CountingHandler();
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE); PgConnection sql = connect(s, ReplicationMode.NONE)) {
            await(repl.createReplicationSlot(CreateSlotOptions.logical("mm_slot", "pgoutput").withSnapshot(SnapshotMode.NOTHING)));
            LogicalReplicationStream st = repl.startLogical(LogicalReplicationOptions.builder("mm_slot").publications("mm_pub")
                    .statusInterval(Duration.ofMillis(200)).autoAcknowledge(true).confirmIdleKeepalives(false).build(), h);
            PgreplMetrics bound = PgreplMetrics.bind(st, registry, Tags.of("app", "test"));
            await(st.started());

            s.sql("postgres", "INSERT INTO mm_t VALUES (1, 'a'), (2, 'b')");
            s.sql("postgres", "INSERT INTO mm_t VALUES (3, 'c')");
            s.sql("postgres", "UPDATE mm_t SET v = 'z' WHERE id = 3");
            waitUntil("3 transactions counted", () -> counter(registry, PgreplMetrics.TRANSACTIONS) == 3);
            // B R I I C, B I C, B U C
            assertEquals(11, counter(registry, PgreplMetrics.MESSAGES));
            assertEquals(11, h.messages);
            assertEquals(h.bytes, counter(registry, PgreplMetrics.BYTES));
            assertEquals(h.maxWalStart, lsn(registry, "received"));

            long lastCommit = h.lastCommitEnd;
            waitUntil("server confirmed the last commit", () -> confirmedFlush(sql, "mm_slot") == lastCommit);
            waitUntil("flushed gauge at the last commit", () -> lsn(registry, "flushed") == lastCommit);
            assertEquals(lastCommit, lsn(registry, "acknowledged"));
            assertTrue(lsn(registry, "server_wal_end") >= lastCommit);
            double lag = registry.get(PgreplMetrics.LAG).tag("slot", "mm_slot").gauge().value();
            assertTrue(lag >= 0 && !Double.isNaN(lag), "lag " + lag);
            assertTrue(counter(registry, PgreplMetrics.STATUS_UPDATES) >= 1);

            // After the stream ended nothing arrives: the idle time must keep growing, not freeze at
            // the last status update's snapshot (which is what stream.metrics() returns off the loop).
            await(st.stop());
            double idle1 = registry.get(PgreplMetrics.IDLE).tag("slot", "mm_slot").timeGauge().value(TimeUnit.MILLISECONDS);
            Thread.sleep(800);
            double idle2 = registry.get(PgreplMetrics.IDLE).tag("slot", "mm_slot").timeGauge().value(TimeUnit.MILLISECONDS);
            long frozen = st.metrics().millisSinceLastMessage();
            // Growing at all is the point (a frozen snapshot would read the same twice); how much it
            // grew in 800 ms is a timing matter on a loaded machine, so it is not asserted.
            assertTrue(idle2 > idle1 && idle2 > frozen, "idle " + idle1 + " then " + idle2 + ", frozen " + frozen);

            assertEquals(10, bound.meters().size()); // 4 counters, lag, idle, 4 positions
            for (Meter m : bound.meters()) {
                assertEquals("mm_slot", m.getId().getTag("slot"));
                assertEquals("test", m.getId().getTag("app"));
            }
            bound.close();
            assertNull(registry.find(PgreplMetrics.MESSAGES).functionCounter());
            assertTrue(registry.getMeters().isEmpty());
            await(repl.dropReplicationSlot("mm_slot", true));
        } finally {
            s.sql("postgres", "DROP PUBLICATION mm_pub; DROP TABLE mm_t");
        }
    }

    @Test
    void countersCarryAcrossReconnects(PgServer s) throws Exception {
        s.sql("postgres", "CREATE TABLE mm_r (id int PRIMARY KEY); CREATE PUBLICATION mm_rpub FOR TABLE mm_r");
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            await(repl.createReplicationSlot(CreateSlotOptions.logical("mm_rslot", "pgoutput").withSnapshot(SnapshotMode.NOTHING)));
        }
        MeterRegistry registry = new SimpleMeterRegistry();
        CountingHandler h = new CountingHandler();
        ReconnectingLogicalStream r = ReconnectingLogicalStream.start(config(s, ReplicationMode.DATABASE),
                LogicalReplicationOptions.builder("mm_rslot").publications("mm_rpub").statusInterval(Duration.ofMillis(200))
                        .autoAcknowledge(true).confirmIdleKeepalives(false).build(), h,
                new ReconnectPolicy(Duration.ofMillis(100), Duration.ofSeconds(1), 2, 0.5, 20));
        try (PgConnection sql = connect(s, ReplicationMode.NONE);
             PgreplMetrics bound = PgreplMetrics.bind(r, "mm_rslot", registry, Tags.empty())) {
            s.sql("postgres", "INSERT INTO mm_r VALUES (1)");
            waitUntil("first commit confirmed", () -> h.commits == 1 && confirmedFlush(sql, "mm_rslot") == h.lastCommitEnd);
            waitUntil("first commit counted", () -> counter(registry, PgreplMetrics.TRANSACTIONS) == 1);
            s.sql("postgres", "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = 'mm_rslot'");
            waitUntil("reconnected", () -> r.reconnects() >= 1 && r.current() != null);
            s.sql("postgres", "INSERT INTO mm_r VALUES (2)");
            waitUntil("second commit delivered", () -> h.commits == 2);
            // B R I C on each connection (Relation is sent again on a new connection).
            waitUntil("both connections' transactions counted", () -> counter(registry, PgreplMetrics.TRANSACTIONS) == 2);
            assertEquals(8, h.messages);
            assertEquals(8, counter(registry, PgreplMetrics.MESSAGES));
            assertEquals(h.bytes, counter(registry, PgreplMetrics.BYTES));
            assertTrue(registry.get(PgreplMetrics.RECONNECTS).functionCounter().count() >= 1);
            assertEquals(11, bound.meters().size()); // and reconnects
        } finally {
            await(r.stop());
            try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
                await(repl.dropReplicationSlot("mm_rslot", true));
            }
            s.sql("postgres", "DROP PUBLICATION mm_rpub; DROP TABLE mm_r");
        }
    }

    private static double counter(MeterRegistry r, String name) {
        return r.get(name).functionCounter().count();
    }

    private static long lsn(MeterRegistry r, String position) {
        return (long) r.get(PgreplMetrics.LSN).tag("position", position).gauge().value();
    }

    private static ConnectionConfig config(PgServer s, ReplicationMode mode) {
        return ConnectionConfig.builder().host(s.host()).port(s.port()).user(s.superuser().name())
                .password(s.superuser().password()).database("postgres").sslMode(SslMode.DISABLE).replication(mode).build();
    }

    private static PgConnection connect(PgServer s, ReplicationMode mode) throws Exception {
        return await(PgConnection.connect(config(s, mode)));
    }

    private static long confirmedFlush(PgConnection sql, String slot) {
        try {
            String v = await(sql.query("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '" + slot + "'"))
                    .singleRow().get(0);
            return v == null ? 0 : Lsn.parse(v);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(60, TimeUnit.SECONDS);
    }

    private static void waitUntil(String what, BooleanSupplier cond) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("timed out waiting for " + what);
            Thread.sleep(20);
        }
    }
}
