package io.pgrepl.metrics.micrometer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.TimeGauge;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.Row;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.slot.SlotHealth;
import io.pgrepl.client.slot.SlotMonitor;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.LogicalStreamHandler;
import io.pgrepl.testkit.AuthMethod;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.Waits;
import io.pgrepl.testkit.PgVersions;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Slot gauges against the server's own numbers, read by the test with its own SQL at a moment the
 * slot did not move between the monitor's poll and the test's reads. Newest major and 13 (the first
 * with safe_wal_size); spill counters on 14+ (pg_stat_replication_slots).
 */
class SlotMetricsTest {
    private static final Duration WAIT = Waits.CEILING;
    private static final Map<Integer, PgServer> SERVERS = new TreeMap<>();

    static Stream<Integer> majors() {
        var m = PgVersions.matrix().stream().filter(v -> v >= 13).sorted().toList();
        if (m.isEmpty()) return Stream.of();
        return m.size() == 1 ? Stream.of(m.get(0)) : Stream.of(m.get(m.size() - 1), m.get(0));
    }

    static synchronized PgServer server(int major) {
        return SERVERS.computeIfAbsent(major, v -> PgServer.builder().version(v).auth(AuthMethod.SCRAM_SHA_256)
                .setting("max_slot_wal_keep_size", "256MB").setting("logical_decoding_work_mem", "64kB").start());
    }

    @AfterAll
    static void stop() {
        SERVERS.values().forEach(PgServer::close);
    }

    @ParameterizedTest(name = "PG {0}")
    @MethodSource("majors")
    void gaugesMatchTheServersOwnViews(int major) throws Exception {
        PgServer s = server(major);
        s.sql("postgres", "CREATE TABLE sm_t (id int PRIMARY KEY, v text); CREATE PUBLICATION sm_pub FOR TABLE sm_t");
        s.sql("postgres", "SELECT pg_create_logical_replication_slot('sm_active', 'pgoutput')");
        s.sql("postgres", "SELECT pg_create_logical_replication_slot('sm_idle', 'pgoutput')");
        // A transaction far larger than logical_decoding_work_mem (64 kB): decoding it spills.
        s.sql("postgres", "INSERT INTO sm_t SELECT g, repeat('x', 200) FROM generate_series(1, 5000) g");
        MeterRegistry registry = new SimpleMeterRegistry();
        AtomicInteger polls = new AtomicInteger();
        try (PgConnection repl = await(PgConnection.connect(config(s, ReplicationMode.DATABASE)));
             PgConnection sql = await(PgConnection.connect(config(s, ReplicationMode.NONE)));
             SlotMonitor monitor = SlotMonitor.builder(config(s, ReplicationMode.NONE)).interval(Duration.ofMillis(200))
                     .listener(x -> polls.incrementAndGet()).build()) {
            LogicalReplicationStream st = repl.startLogical(LogicalReplicationOptions.builder("sm_active").publications("sm_pub")
                    .statusInterval(Duration.ofMillis(200)).build(), new LogicalStreamHandler() {});
            await(st.started());
            await(sql.query("SELECT count(*) FROM pg_logical_slot_peek_binary_changes('sm_idle', NULL, NULL,"
                    + " 'proto_version', '1', 'publication_names', 'sm_pub')"));
            SlotMetrics bound = SlotMetrics.bind(monitor, registry, Tags.of("app", "test"));
            monitor.start();
            if (major >= 14) {
                waitUntil("spill statistics", () -> num(sql, "SELECT spill_bytes FROM pg_stat_replication_slots"
                        + " WHERE slot_name = 'sm_idle'") > 0);
            }

            // The server's numbers, stable across a whole poll of the monitor.
            String cols = "s.slot_name, s.active::text, (pg_current_wal_lsn() - s.restart_lsn)::bigint,"
                    + " (pg_current_wal_lsn() - s.confirmed_flush_lsn)::bigint, s.wal_status, s.safe_wal_size,"
                    + (major >= 14 ? " st.spill_bytes, st.spill_txns, st.stream_bytes" : " 0, 0, 0")
                    + ", host(r.client_addr)";
            String q = "SELECT " + cols + " FROM pg_replication_slots s LEFT JOIN pg_stat_replication r ON r.pid = s.active_pid"
                    + (major >= 14 ? " LEFT JOIN pg_stat_replication_slots st ON st.slot_name = s.slot_name" : "")
                    + " WHERE s.slot_name LIKE 'sm\\_%' ORDER BY 1";
            String before;
            String after;
            do {
                before = rows(sql, q);
                int p = polls.get();
                waitUntil("a poll", () -> polls.get() >= p + 2); // +2: one poll may have started before the read
                after = rows(sql, q);
            } while (!before.equals(after));

            for (Row r : await(sql.query(q)).rows()) {
                String slot = r.get(0);
                assertEquals(Double.parseDouble(r.get(2)), gauge(registry, SlotMetrics.RETAINED_WAL, slot), slot);
                assertEquals(Double.parseDouble(r.get(3)), gauge(registry, SlotMetrics.LAG_BYTES, slot), slot);
                assertEquals(Double.parseDouble(r.get(5)), gauge(registry, SlotMetrics.SAFE_WAL_SIZE, slot), slot);
                assertEquals(1.0, registry.find(SlotMetrics.WAL_STATUS).tags("slot", slot, "state", r.get(4)).gauge().value());
                assertEquals(r.get(1).equals("true") ? 1.0 : 0.0, gauge(registry, SlotMetrics.ACTIVE, slot));
                assertEquals(Double.parseDouble(r.get(6)), counter(registry, SlotMetrics.SPILL_BYTES, slot), slot);
                assertEquals(Double.parseDouble(r.get(7)), counter(registry, SlotMetrics.SPILL_TXNS, slot), slot);
                assertEquals(Double.parseDouble(r.get(8)), counter(registry, SlotMetrics.STREAM_BYTES, slot), slot);
                SlotHealth h = monitor.latest(slot);
                assertEquals(r.get(9), h.clientAddr(), slot);
                assertEquals("postgres", registry.find(SlotMetrics.RETAINED_WAL).tags("slot", slot).gauge().getId().getTag("database"));
            }
            if (major >= 14) assertTrue(counter(registry, SlotMetrics.SPILL_BYTES, "sm_idle") > 0, "the idle slot spilled");
            assertEquals("127.0.0.1", monitor.latest("sm_active").clientAddr());
            TimeGauge inactive = registry.find(SlotMetrics.INACTIVE_SECONDS).tags("slot", "sm_idle").timeGauge();
            if (major >= 17) {
                assertTrue(inactive.value(TimeUnit.SECONDS) > 0, "inactive_since is set for the idle slot");
            } else {
                assertTrue(Double.isNaN(inactive.value(TimeUnit.SECONDS)), "no inactive_since before 17");
                assertNull(monitor.latest("sm_idle").inactiveSince());
            }

            await(st.stop());
            bound.close();
            assertNull(registry.find(SlotMetrics.RETAINED_WAL).gauge(), "meters removed on close");
        }
        s.dropReplicationSlot("sm_active");
        s.dropReplicationSlot("sm_idle");
    }

    private static double gauge(MeterRegistry r, String name, String slot) {
        Gauge g = r.find(name).tags("slot", slot).gauge();
        return g == null ? Double.NaN : g.value();
    }

    private static double counter(MeterRegistry r, String name, String slot) {
        FunctionCounter c = r.find(name).tags("slot", slot).functionCounter();
        return c.count();
    }

    private static String rows(PgConnection sql, String q) throws Exception {
        return await(sql.query(q)).rows().toString();
    }

    private static long num(PgConnection sql, String q) {
        try {
            String v = await(sql.query(q)).singleRow().get(0);
            return v == null ? 0 : Long.parseLong(v);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static ConnectionConfig config(PgServer s, ReplicationMode mode) {
        return ConnectionConfig.builder().host(s.host()).port(s.port()).user(s.superuser().name())
                .password(s.superuser().password()).database("postgres").sslMode(SslMode.DISABLE).replication(mode).build();
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    private static void waitUntil(String what, BooleanSupplier cond) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("timed out waiting for " + what);
            Thread.sleep(20);
        }
    }
}
