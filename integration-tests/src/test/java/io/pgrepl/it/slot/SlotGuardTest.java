package io.pgrepl.it.slot;

import static io.pgrepl.it.slot.SlotSupport.FAST;
import static io.pgrepl.it.slot.SlotSupport.await;
import static io.pgrepl.it.slot.SlotSupport.failure;
import static io.pgrepl.it.slot.SlotSupport.options;
import static io.pgrepl.it.slot.SlotSupport.replication;
import static io.pgrepl.it.slot.SlotSupport.setUp;
import static io.pgrepl.it.slot.SlotSupport.value;
import static io.pgrepl.it.slot.SlotSupport.waitUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.slot.GuardEvent;
import io.pgrepl.client.slot.SlotGuard;
import io.pgrepl.client.slot.SlotGuardPolicy;
import io.pgrepl.client.slot.SlotHealth;
import io.pgrepl.client.slot.SlotHealthListener;
import io.pgrepl.client.slot.SlotMonitor;
import io.pgrepl.client.slot.SnapshotControl;
import io.pgrepl.client.stream.ReconnectingLogicalStream;
import io.pgrepl.client.stream.SlotGuardTrippedException;
import io.pgrepl.codec.Lsn;
import io.pgrepl.it.fault.FaultMajors;
import io.pgrepl.testkit.PgServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The slot guard on real servers with a real {@code max_slot_wal_keep_size} (128 MB, i.e. 8 WAL
 * segments of 16 MB): a consumer that never confirms while WAL is written one segment at a time;
 * the guard warns, pauses the snapshot, then fails the stream while the slot is still usable, and
 * the same slot is then really invalidated by more WAL and a checkpoint (so the limit was real).
 * Newest major and 13 (the first with safe_wal_size).
 */
class SlotGuardTest {
    private static final long MB = 1024 * 1024;
    private static final FaultMajors KEEP = new FaultMajors(Map.of("max_slot_wal_keep_size", "128MB",
            "wal_keep_size", "0"));

    static Stream<Integer> majors() {
        return FaultMajors.newestAndOldest(13);
    }

    @AfterAll
    static void stopServers() {
        KEEP.close();
    }

    static ConnectionConfig monitorConfig(PgServer s) {
        return ConnectionConfig.builder().host(s.host()).port(s.port()).user(s.superuser().name())
                .password(s.superuser().password()).database("postgres").sslMode(SslMode.DISABLE).build();
    }

    /** Records the guard's calls, as the incremental snapshot will receive them. */
    static final class RecordingSnapshot implements SnapshotControl {
        final List<String> calls = new CopyOnWriteArrayList<>();

        @Override
        public void pause() {
            calls.add("pause");
        }

        @Override
        public void abort(String reason) {
            calls.add("abort");
        }
    }

    @ParameterizedTest(name = "PG {0}")
    @MethodSource("majors")
    void guardWarnsPausesTheSnapshotThenFailsTheStreamBeforeTheSlotIsInvalidated(int major) throws Exception {
        PgServer s = KEEP.server(major);
        setUp(s, "g_slow");
        s.sql("postgres", "CREATE TABLE g_fill (id int)");
        SlotSupport.Handler h = new SlotSupport.Handler();
        // Nothing is acknowledged (and idle keepalives are not confirmed): restart_lsn stays put.
        ReconnectingLogicalStream r = ReconnectingLogicalStream.start(replication(s), options("g_slow", "g_slow_pub"), h, FAST);
        s.sql("postgres", "INSERT INTO g_slow VALUES (0)");
        waitUntil("streaming", () -> h.inserts.contains("0"));

        AtomicLong seenLsn = new AtomicLong();
        List<GuardEvent> events = new CopyOnWriteArrayList<>();
        RecordingSnapshot snapshot = new RecordingSnapshot();
        try (SlotMonitor monitor = SlotMonitor.builder(monitorConfig(s)).slot("g_slow").interval(Duration.ofMillis(200)).build();
             PgConnection sql = SlotSupport.sql(s)) {
            SlotGuard guard = SlotGuard.attach(monitor, "g_slow", SlotGuardPolicy.builder().warnWhenSafeWalBelow(96 * MB)
                    .snapshotWhenSafeWalBelow(72 * MB).failWhenSafeWalBelow(48 * MB).build(), r);
            guard.snapshot(snapshot);
            guard.addListener(events::add);
            // Added after the guard: called after it, so a poll seen here was judged by the guard.
            monitor.addListener(slots -> slots.forEach(x -> seenLsn.accumulateAndGet(x.currentLsn(), Lsn::max)));
            monitor.start();

            for (int i = 1; i <= 12 && guard.tripped() == null; i++) {
                await(sql.simpleQuery("INSERT INTO g_fill VALUES (" + i + "); SELECT pg_switch_wal()"));
                long after = Lsn.parse(value(sql, "SELECT pg_current_wal_lsn()"));
                waitUntil("a poll after switch " + i, () -> Long.compareUnsigned(seenLsn.get(), after) >= 0);
                String status = value(sql, "SELECT wal_status FROM pg_replication_slots WHERE slot_name = 'g_slow'");
                assertTrue(guard.tripped() != null || "reserved".equals(status) || "extended".equals(status),
                        "the server would invalidate the slot before the guard tripped: " + status);
            }
            SlotGuardTrippedException e = assertInstanceOf(SlotGuardTrippedException.class, failure(r.completion()));
            assertEquals(guard.tripped(), e);
            assertFalse(e.isTransient());
            assertEquals(0, r.reconnects(), "a tripped guard is not retried");
            assertEquals("g_slow", e.slotName());
            assertNotNull(e.safeWalSize());
            assertTrue(e.safeWalSize() > 0 && e.safeWalSize() < 48 * MB, e.getMessage());
            assertTrue(e.getMessage().contains("safe_wal_size < 48.0 MB"), e.getMessage());

            assertEquals(List.of(GuardEvent.Kind.WARNED, GuardEvent.Kind.SNAPSHOT_PAUSED, GuardEvent.Kind.TRIPPED),
                    events.stream().map(GuardEvent::kind).toList());
            assertEquals(List.of("pause"), snapshot.calls);
            SlotHealth atTrip = events.get(2).health();
            assertEquals("reserved", atTrip.walStatus(), "tripped with the slot's WAL still reserved");

            // The slot is still usable now: the server says so itself.
            waitUntil("the walsender gone", () -> query(sql, "SELECT active FROM pg_replication_slots WHERE slot_name = 'g_slow'").equals("f"));
            String safe = value(sql, "SELECT safe_wal_size FROM pg_replication_slots WHERE slot_name = 'g_slow'");
            assertTrue(Long.parseLong(safe) > 0, "safe_wal_size " + safe);
            assertEquals("reserved", value(sql, "SELECT wal_status FROM pg_replication_slots WHERE slot_name = 'g_slow'"));

            // The limit was real: more WAL and a checkpoint do invalidate the slot.
            String status = "";
            for (int i = 100; i <= 120 && !"lost".equals(status); i++) {
                await(sql.simpleQuery("INSERT INTO g_fill VALUES (" + i + "); SELECT pg_switch_wal(); CHECKPOINT"));
                status = value(sql, "SELECT wal_status FROM pg_replication_slots WHERE slot_name = 'g_slow'");
            }
            assertEquals("lost", status);
            guard.close();
        }
        s.dropReplicationSlot("g_slow");
    }

    @ParameterizedTest(name = "PG {0}")
    @MethodSource("majors")
    void theFailHookEndsAPausedStreamAndOneNotYetStarted(int major) throws Exception {
        PgServer s = KEEP.server(major);
        setUp(s, "g_hook");
        SlotGuardTrippedException trip = new SlotGuardTrippedException("g_hook", "reserved", 1L, 2L, "test");
        try (PgConnection c = await(PgConnection.connect(replication(s)))) {
            io.pgrepl.client.stream.LogicalReplicationStream st = c.startLogical(options("g_hook", "g_hook_pub"),
                    new SlotSupport.Handler());
            st.fail(trip); // before CopyBothResponse
            assertEquals(trip, failure(st.completion()));
        }
        SlotSupport.Handler h = new SlotSupport.Handler();
        try (PgConnection c = await(PgConnection.connect(replication(s)))) {
            io.pgrepl.client.stream.LogicalReplicationStream st = c.startLogical(options("g_hook", "g_hook_pub"), h);
            await(st.started());
            st.pauseReading();
            s.sql("postgres", "INSERT INTO g_hook VALUES (1)");
            st.fail(trip); // paused: the server's answer to CopyDone must still be read
            assertEquals(trip, failure(st.completion()));
        }
        s.dropReplicationSlot("g_hook");
    }

    @ParameterizedTest(name = "PG {0}")
    @MethodSource("majors")
    void monitorSurvivesItsConnectionBeingTerminatedAndSaysSo(int major) throws Exception {
        PgServer s = KEEP.server(major);
        s.sql("postgres", "SELECT pg_create_logical_replication_slot('g_mon', 'pgoutput')");
        AtomicInteger polls = new AtomicInteger();
        AtomicInteger errors = new AtomicInteger();
        AtomicInteger recovered = new AtomicInteger();
        try (SlotMonitor monitor = SlotMonitor.builder(monitorConfig(s)).slot("g_mon").interval(Duration.ofMillis(150))
                .listener(new SlotHealthListener() {
                    @Override
                    public void onHealth(List<SlotHealth> slots) {
                        if (slots.size() == 1 && slots.get(0).slotName().equals("g_mon")) polls.incrementAndGet();
                    }

                    @Override
                    public void onMonitorError(Throwable error, int consecutiveFailures) {
                        errors.incrementAndGet();
                    }

                    @Override
                    public void onMonitorRecovered() {
                        recovered.incrementAndGet();
                    }
                }).build().start();
             PgConnection sql = SlotSupport.sql(s)) {
            waitUntil("a poll", () -> polls.get() >= 1);
            await(sql.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'pgrepl-slot-monitor'"));
            waitUntil("the failure reported", () -> errors.get() >= 1);
            int before = polls.get();
            waitUntil("polling again", () -> recovered.get() == 1 && polls.get() > before);
            assertEquals("g_mon", monitor.latest("g_mon").slotName());
        }
        s.dropReplicationSlot("g_mon");
    }

    @ParameterizedTest(name = "PG {0}")
    @MethodSource("majors")
    void idleReplicationSlotTimeoutIsWarnedAboutOn18(int major) throws Exception {
        PgServer s = KEEP.server(major);
        if (major < 18) return; // the setting is 18's
        s.sql("postgres", "SELECT pg_create_logical_replication_slot('g_idle', 'pgoutput')");
        s.sql("postgres", "ALTER SYSTEM SET idle_replication_slot_timeout = '1h'");
        s.sql("postgres", "SELECT pg_reload_conf()");
        List<GuardEvent> events = new CopyOnWriteArrayList<>();
        try (SlotMonitor monitor = SlotMonitor.builder(monitorConfig(s)).slot("g_idle").interval(Duration.ofMillis(150)).build()) {
            SlotGuard guard = SlotGuard.attach(monitor, "g_idle", SlotGuardPolicy.builder()
                    .idleTimeoutWarning(Duration.ofHours(2)).build(), e -> { throw new AssertionError("tripped", e); });
            guard.addListener(events::add);
            monitor.start();
            waitUntil("the idle warning", () -> !events.isEmpty());
            GuardEvent e = events.get(0);
            assertEquals(GuardEvent.Kind.IDLE_TIMEOUT_NEAR, e.kind());
            assertEquals(3600L, e.health().idleTimeoutSeconds());
            assertTrue(e.message().contains("idle_replication_slot_timeout (3600 s)"), e.message());
        } finally {
            s.sql("postgres", "ALTER SYSTEM RESET idle_replication_slot_timeout");
            s.sql("postgres", "SELECT pg_reload_conf()");
            s.dropReplicationSlot("g_idle");
        }
    }

    private static String query(PgConnection sql, String q) {
        try {
            return value(sql, q);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
