package io.pgrepl.it.setup;

import static io.pgrepl.it.snapshot.SnapshotSupport.await;
import static io.pgrepl.it.snapshot.SnapshotSupport.waitUntil;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pgrepl.cli.CliBridge;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.replication.SnapshotMode;
import io.pgrepl.client.slot.SlotGuard;
import io.pgrepl.client.slot.SlotGuardPolicy;
import io.pgrepl.client.slot.SlotMonitor;
import io.pgrepl.client.snapshot.incremental.IncrementalOptions;
import io.pgrepl.client.snapshot.incremental.IncrementalSnapshots;
import io.pgrepl.client.snapshot.incremental.SnapshotReadHandler;
import io.pgrepl.client.snapshot.incremental.TableProgress;
import io.pgrepl.client.snapshot.incremental.WatermarkMode;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.LogicalStreamHandler;
import io.pgrepl.client.stream.SlotGuardTrippedException;
import io.pgrepl.codec.pgoutput.TupleView;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The library as docs/operations.md's role (see {@link PageServer}): the incremental snapshot in
 * each watermark mode, the slot monitor and guard, and what {@code pg_read_all_stats} shows. Each
 * mode's own grant is then taken away and the table fails with the server's refusal.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LeastPrivilegeLibraryTest {
    private final Map<Integer, PageServer> servers = new HashMap<>();

    static java.util.stream.Stream<Integer> majors() {
        return LeastPrivilegeTest.majors();
    }

    PageServer server(int major) {
        return servers.computeIfAbsent(major, m -> {
            try {
                return new PageServer(m);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
    }

    @AfterAll
    void stop() {
        servers.values().forEach(PageServer::close);
    }

    /** Counts the reads and keeps each table's last progress. */
    static final class Reads implements SnapshotReadHandler {
        final AtomicLong reads = new AtomicLong();
        final Map<String, TableProgress> progress = new java.util.concurrent.ConcurrentHashMap<>();

        @Override
        public void onSnapshotRead(TupleView row, long position) {
            reads.incrementAndGet();
        }

        @Override
        public void onSnapshotProgress(TableProgress p) {
            progress.put(p.table(), p);
        }

        boolean ended(String table) {
            TableProgress p = progress.get(table);
            return p != null && (p.status() == TableProgress.Status.COMPLETED || p.status() == TableProgress.Status.FAILED);
        }
    }

    /** How one snapshot of a table ended, and how many rows it read. */
    record Outcome(TableProgress progress, long reads) {}

    /** One incremental snapshot of shop.orders as the role, in {@code mode}, on a slot of its own. */
    private static Outcome snapshot(PageServer s, WatermarkMode mode, String slot) throws Exception {
        Outcome out;
        try (PgConnection repl = s.connect(ReplicationMode.DATABASE)) {
            await(repl.createReplicationSlot(CreateSlotOptions.logical(slot, "pgoutput").withSnapshot(SnapshotMode.NOTHING)));
            LogicalReplicationOptions o = LogicalReplicationOptions.builder(slot).publications("app_pub")
                    .messages(mode == WatermarkMode.MESSAGE ? Boolean.TRUE : null).autoAcknowledge(true)
                    .statusInterval(Duration.ofMillis(200)).build();
            IncrementalOptions io = IncrementalOptions.of(s.config(ReplicationMode.NONE)).withChunkSize(100);
            if (mode == WatermarkMode.SIGNAL_TABLE) io = io.withSignalTable("shop.pgrepl_signal");
            io = io.withWatermarks(mode);
            Reads h = new Reads();
            IncrementalSnapshots snaps = IncrementalSnapshots.create(io, h);
            try {
                LogicalReplicationStream stream = repl.startLogical(o, snaps);
                await(stream.started());
                snaps.execute("shop.orders");
                waitUntil(() -> h.ended("shop.orders"), Duration.ofSeconds(60), mode + " snapshot of shop.orders");
                await(stream.stop());
            } finally {
                snaps.close();
            }
            out = new Outcome(h.progress.get("shop.orders"), h.reads.get());
        }
        try (PgConnection repl = s.connect(ReplicationMode.DATABASE)) {
            await(repl.dropReplicationSlot(slot, true));
        }
        return out;
    }

    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("majors")
    void everyWatermarkModeRunsWithThePagesGrantsAndFailsWithoutItsOwn(int major) throws Exception {
        PageServer s = server(major);
        long rows = Long.parseLong(s.scalar("SELECT count(*) FROM shop.orders"));
        java.util.List<WatermarkMode> modes = major >= 14
                ? java.util.List.of(WatermarkMode.READ_ONLY, WatermarkMode.SIGNAL_TABLE, WatermarkMode.MESSAGE)
                : java.util.List.of(WatermarkMode.READ_ONLY, WatermarkMode.SIGNAL_TABLE);
        for (WatermarkMode mode : modes) {
            Outcome done = snapshot(s, mode, "lp_" + mode.name().toLowerCase(java.util.Locale.ROOT));
            assertEquals(TableProgress.Status.COMPLETED, done.progress().status(), mode + ": " + done);
            assertEquals(rows, done.reads(), mode + ": every row read");
        }

        // SIGNAL_TABLE without INSERT on the signal table (role-signal-table).
        s.sql("REVOKE INSERT ON shop.pgrepl_signal FROM cdc");
        TableProgress p = snapshot(s, WatermarkMode.SIGNAL_TABLE, "lp_noins").progress();
        assertEquals(TableProgress.Status.FAILED, p.status(), p.toString());
        assertTrue(p.error().matches("(?s).*permission denied for (table|relation) pgrepl_signal.*"), p.error()); // relation: 10
        s.sql(PageServer.roleSql("role-signal-table"));

        if (major >= 14) {
            // MESSAGE without EXECUTE on pg_logical_emit_message (role-message-14/17), revoked from PUBLIC here.
            String block = major >= 17 ? "role-message-17" : "role-message-14";
            s.sql(PageServer.roleSql(block).replace("GRANT", "REVOKE").replace(" TO cdc", " FROM cdc"));
            p = snapshot(s, WatermarkMode.MESSAGE, "lp_noexec").progress();
            assertEquals(TableProgress.Status.FAILED, p.status(), p.toString());
            assertTrue(p.error().contains("permission denied for function pg_logical_emit_message"), p.error());
            s.sql(PageServer.roleSql(block));
        }

        // READ_ONLY without SELECT (role-snapshot).
        s.sql("REVOKE SELECT ON shop.orders FROM cdc");
        p = snapshot(s, WatermarkMode.READ_ONLY, "lp_nosel").progress();
        assertEquals(TableProgress.Status.FAILED, p.status(), p.toString());
        assertTrue(p.error().contains("permission denied"), p.error());
        s.sql(PageServer.roleSql("role-snapshot"));
    }

    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("majors")
    void monitorAndGuardNeedNoGrantAndStatsNeedPgReadAllStats(int major) throws Exception {
        PageServer s = server(major);
        s.sql("CREATE TABLE IF NOT EXISTS shop.audit (id int, v text)"); // not published: WAL nobody confirms
        try (PgConnection repl = s.connect(ReplicationMode.DATABASE)) {
            await(repl.createReplicationSlot(CreateSlotOptions.logical("lp_guard", "pgoutput").withSnapshot(SnapshotMode.NOTHING)));
            LogicalReplicationOptions o = LogicalReplicationOptions.builder("lp_guard").publications("app_pub").build();
            LogicalReplicationStream stream = repl.startLogical(o, new LogicalStreamHandler() { });
            await(stream.started());
            try (SlotMonitor monitor = SlotMonitor.builder(s.config(ReplicationMode.NONE)).slot("lp_guard")
                    .interval(Duration.ofMillis(200)).build()) {
                SlotGuard guard = SlotGuard.attach(monitor, "lp_guard", SlotGuardPolicy.builder()
                        .failWhenRetainedWalAbove(256 * 1024).build(), stream);
                monitor.start();
                s.sql("INSERT INTO shop.audit SELECT g, repeat('x', 200) FROM generate_series(1, 5000) g");
                Throwable t = failure(stream.completion());
                SlotGuardTrippedException e = assertInstanceOf(SlotGuardTrippedException.class, t);
                assertEquals("lp_guard", e.slotName());
                assertNotNull(guard.tripped());
                assertNotNull(monitor.latest("lp_guard").retainedWal(), "the monitor read the slot as the role");
            }
        }
        CliBridge.run("slot", "drop", s.url(), "lp_guard", "--wait");

        // Another role's walsender: its client address only with pg_read_all_stats (role-monitoring).
        try (PgConnection su = await(PgConnection.connect(io.pgrepl.client.ConnectionConfig.parse(
                s.server.url(s.server.superuser(), PageServer.DB) + "?sslmode=disable").toBuilder()
                .replication(ReplicationMode.DATABASE).build()))) {
            await(su.createReplicationSlot(CreateSlotOptions.logical("lp_other", "pgoutput").withSnapshot(SnapshotMode.NOTHING)));
            LogicalReplicationStream other = su.startLogical(LogicalReplicationOptions.builder("lp_other").publications("app_pub").build(),
                    new LogicalStreamHandler() { });
            await(other.started());
            assertTrue(clientAddr(s, "lp_other") != null, "seen with pg_read_all_stats");
            s.sql("REVOKE pg_read_all_stats FROM cdc");
            assertEquals(null, clientAddr(s, "lp_other"), "hidden without pg_read_all_stats");
            s.sql(PageServer.roleSql("role-monitoring"));
            await(other.stop());
            await(su.dropReplicationSlot("lp_other", true));
        }

        // A commit waiting for a synchronous standby: what the incremental snapshot's LingeringCommits asks.
        String lingering = "SELECT backend_xid::text FROM pg_catalog.pg_stat_activity"
                + " WHERE wait_event = 'SyncRep' AND backend_xid IS NOT NULL AND datname = pg_catalog.current_database()";
        s.server.reload(Map.of("synchronous_standby_names", "lp_ghost"));
        try (PgConnection waiting = s.admin(); PgConnection sql = s.connect(ReplicationMode.NONE)) {
            CompletableFuture<?> commit = waiting.simpleQuery("SET synchronous_commit = on; INSERT INTO shop.audit VALUES (-1, 'waits')")
                    .toCompletableFuture();
            waitUntil(() -> "1".equals(scalarQuiet(s, "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'")),
                    Duration.ofSeconds(30), "a commit waiting for the standby");
            assertEquals(1, await(sql.query(lingering)).rows().size(), "seen with pg_read_all_stats");
            s.sql("REVOKE pg_read_all_stats FROM cdc");
            assertEquals(0, await(sql.query(lingering)).rows().size(), "hidden without pg_read_all_stats");
            s.sql(PageServer.roleSql("role-monitoring"));
            s.sql("SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE wait_event = 'SyncRep'");
            try {
                commit.get(30, TimeUnit.SECONDS);
            } catch (ExecutionException expected) {
                // cancelled wait: the commit stands locally, with a warning
            }
        } finally {
            s.server.reload(Map.of("synchronous_standby_names", ""));
        }
    }

    private static String clientAddr(PageServer s, String slot) throws Exception {
        JsonNode top = LeastPrivilegeTest.JSON.readTree(LeastPrivilegeTest.ok("top", s.url(), "--once", "--json").out());
        for (JsonNode n : top) {
            if (n.path("slot_name").asText().equals(slot)) return n.path("client_addr").isNull() ? null : n.path("client_addr").asText();
        }
        throw new AssertionError("no slot " + slot + " in " + top);
    }

    private static String scalarQuiet(PageServer s, String sql) {
        try {
            return s.scalar(sql);
        } catch (Exception e) {
            return null;
        }
    }

    private static Throwable failure(java.util.concurrent.CompletionStage<?> stage) throws Exception {
        try {
            stage.toCompletableFuture().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("completed normally");
    }
}
