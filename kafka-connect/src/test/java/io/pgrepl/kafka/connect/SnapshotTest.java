package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.Row;
import io.pgrepl.kafka.connect.ConnectHarness.Change;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.Waits;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * snapshot.mode initial, initial_only and when_needed against real PostgreSQL (18 and 10), a real
 * in-process Kafka and a real Connect worker: tables rebuilt from the topics (reads, then changes
 * in order) equal the source tables as the server returns them at the end.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SnapshotTest {
    private EmbeddedConnectCluster connect;
    private final Map<Integer, PgServer> servers = new HashMap<>();

    @BeforeAll
    void start() {
        connect = ConnectHarness.start("snap", 1, Map.of());
    }

    @AfterAll
    void stop() {
        if (connect != null) connect.stop();
        servers.values().forEach(PgServer::close);
    }

    PgServer server(int major) {
        return servers.computeIfAbsent(major, m -> PgServer.start(PgServer.builder().version(m).build()));
    }

    private static Map<String, String> config(PgServer pg, String p, String mode) {
        Map<String, String> c = EndToEndTest.connectorConfig(pg, p);
        c.put("snapshot.mode", mode);
        c.put("snapshot.max.threads", "2");
        return c;
    }

    /** id, v, n of a table as the server has it: the expected rebuild. */
    private static Map<Object, Map<String, Object>> expected(PgServer pg, String table) throws Exception {
        Map<Object, Map<String, Object>> out = new TreeMap<>();
        for (Row r : EndToEndTest.query(pg, "SELECT id, v, n FROM " + table + " ORDER BY id")) {
            Map<String, Object> row = new TreeMap<>();
            row.put("id", Integer.parseInt(r.get(0)));
            if (r.get(1) != null) row.put("v", r.get(1));
            if (r.get(2) != null) row.put("n", Integer.parseInt(r.get(2)));
            out.put(Integer.parseInt(r.get(0)), row);
        }
        return out;
    }

    private static long count(List<Change> all, String topic, String op) {
        return all.stream().filter(c -> c.topic().equals(topic) && c.value() != null && op.equals(c.op())).count();
    }

    /**
     * Inserts, updates (some changing the key) and deletes run on the big table from before the
     * connector starts until well after streaming began, so they overlap the copy: rows changed
     * before the consistent point must come as reads, later ones as changes, none lost or doubled.
     */
    @ParameterizedTest(name = "PostgreSQL {0}")
    @ValueSource(ints = {18, 10})
    void snapshotThenStreamWithWritesDuringTheCopy(int major) throws Exception {
        PgServer pg = server(major);
        String p = "snap" + major;
        int n = 5_000;
        EndToEndTest.sql(pg, "CREATE TABLE " + p + "_big (id int PRIMARY KEY, v text, n int);"
                + "INSERT INTO " + p + "_big SELECT g, 'v' || g, g FROM generate_series(1, " + n + ") g;"
                + "CREATE TABLE " + p + "_small (id int PRIMARY KEY, v text, n int);"
                + "INSERT INTO " + p + "_small SELECT g, NULL, g FROM generate_series(1, 50) g;"
                + "CREATE TABLE " + p + "_end (id int PRIMARY KEY, v text, n int)");
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger done = new AtomicInteger();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread workload = new Thread(() -> {
            try (PgConnection c = PgConnection.connect(pg.url(pg.superuser(), "postgres")).toCompletableFuture()
                    .get(30, TimeUnit.SECONDS)) {
                for (int i = 1; running.get(); i++) {
                    String t = p + "_big";
                    String sql = switch (i % 4) {
                        case 0 -> "INSERT INTO " + t + " VALUES (" + (n + i) + ", 'w" + i + "', " + i + ")";
                        case 1 -> "UPDATE " + t + " SET v = 'u" + i + "', n = n + 1 WHERE id = " + (i * 7919 % n + 1);
                        case 2 -> "DELETE FROM " + t + " WHERE id = " + (i * 104_729 % n + 1);
                        default -> "UPDATE " + t + " SET id = -id WHERE id = " + (i * 31 % n + 1); // a key change
                    };
                    c.query(sql).toCompletableFuture().get(30, TimeUnit.SECONDS);
                    done.incrementAndGet();
                }
            } catch (Throwable e) {
                failed.set(e);
            }
        }, "workload");
        workload.start();
        int atConfigure;
        int atStream;
        try {
            while (done.get() < 20 && failed.get() == null) Thread.sleep(10);
            atConfigure = done.get();
            connect.configureConnector(p, config(pg, p, "initial"));
            ConnectHarness.awaitRunning(connect, p, 1, "connector did not start");
            // The slot is active from the start of CREATE_REPLICATION_SLOT, which may wait for running
            // transactions (this workload's) before it reaches its consistent point: writes until then
            // belong to the copy. confirmed_flush_lsn is set once that point is reached.
            EndToEndTest.awaitSlotActive(pg, p + "_slot");
            awaitConsistentPoint(pg, p + "_slot");
            atStream = done.get();
            while (done.get() < atStream + 50 && failed.get() == null) Thread.sleep(10);
        } finally {
            running.set(false);
            workload.join(30_000);
        }
        assertNull(failed.get(), () -> "workload failed: " + failed.get());
        assertTrue(atStream > atConfigure, "the workload wrote while the slot was created and the copy ran");
        EndToEndTest.sql(pg, "INSERT INTO " + p + "_end VALUES (1, 'end', 1)");

        String big = p + ".public." + p + "_big";
        String small = p + ".public." + p + "_small";
        List<Change> all = ConnectHarness.readUntil(connect, "\\Q" + p + ".public." + p + "_\\E.*", Map.of(),
                l -> l.stream().anyMatch(c -> c.topic().endsWith("_end")), Duration.ofSeconds(90));

        assertEquals(expected(pg, p + "_big"), EndToEndTest.rebuilt(all, big));
        assertEquals(expected(pg, p + "_small"), EndToEndTest.rebuilt(all, small));
        assertEquals(50, count(all, small, "r"));
        // Reads counted, not folded by key: one copy, so no row is read twice.
        for (String topic : List.of(big, small)) {
            Map<Object, Long> perKey = all.stream().filter(c -> c.topic().equals(topic) && c.value() != null && "r".equals(c.op()))
                    .collect(java.util.stream.Collectors.groupingBy(c -> c.value().getStruct("after").get("id"),
                            java.util.stream.Collectors.counting()));
            assertEquals(Set.of(1L), Set.copyOf(perKey.values()), topic + ": every row read exactly once");
        }
        assertTrue(count(all, big, "r") > n / 2, "the big table came as reads");
        assertTrue(count(all, big, "u") + count(all, big, "c") + count(all, big, "d") > 0, "changes streamed after the copy");
        // Every read: before null, all carry the consistent point; source.snapshot as Debezium marks it:
        // a table's first and last reads (in its topic's order) first_in_data_collection and
        // last_in_data_collection, "true" between, except exactly one "first" and one "last" overall.
        List<Change> reads = all.stream().filter(c -> c.value() != null && "r".equals(c.op())).toList();
        for (String topic : List.of(big, small)) {
            List<String> marks = reads.stream().filter(c -> c.topic().equals(topic))
                    .map(c -> c.value().getStruct("source").getString("snapshot")).toList();
            assertTrue(Set.of("first", "first_in_data_collection").contains(marks.get(0)), topic + " begins with " + marks.get(0));
            assertTrue(Set.of("last", "last_in_data_collection").contains(marks.get(marks.size() - 1)),
                    topic + " ends with " + marks.get(marks.size() - 1));
            assertEquals(Set.of("true"), Set.copyOf(marks.subList(1, marks.size() - 1)), topic + ": reads between");
        }
        for (String once : List.of("first", "last")) {
            assertEquals(1, reads.stream().filter(c -> once.equals(c.value().getStruct("source").getString("snapshot"))).count());
        }
        assertTrue(reads.stream().allMatch(c -> c.value().get("before") == null));
        assertEquals(1, reads.stream().map(c -> c.value().getStruct("source").getInt64("lsn")).distinct().count());
        // A read's key and after look like an insert's.
        Change read = reads.get(0);
        assertEquals(read.value().getStruct("after").get("id"), read.key().get("id"));
        assertTrue(all.stream().filter(c -> c.value() != null && !"r".equals(c.op()))
                .allMatch(c -> "false".equals(c.value().getStruct("source").getString("snapshot"))));
        connect.deleteConnector(p);
    }

    /** initial_only: exactly the reads, nothing that was written later, and no slot left behind. */
    @Test
    void initialOnlyProducesExactlyTheReads() throws Exception {
        PgServer pg = server(18);
        String p = "only";
        EndToEndTest.sql(pg, "CREATE TABLE only_t (id int PRIMARY KEY, v text, n int);"
                + "INSERT INTO only_t SELECT g, 'v' || g, g FROM generate_series(1, 500) g");
        Map<Object, Map<String, Object>> before = expected(pg, "only_t");
        connect.configureConnector(p, config(pg, p, "initial_only"));
        ConnectHarness.awaitRunning(connect, p, 1, "connector did not start");
        ConnectHarness.readUntil(connect, "\\Qonly.public.only_t\\E", Map.of(), l -> l.size() >= 500, Duration.ofSeconds(60));
        EndToEndTest.sql(pg, "INSERT INTO only_t VALUES (501, 'late', 501); UPDATE only_t SET v = 'late' WHERE id = 1");
        // The copy's temporary slot is gone: nothing can stream the late changes any more. The read
        // below goes on until several polls in a row bring nothing, so records still on their way show.
        awaitNoSlot(pg, "only_slot");
        ConnectHarness.awaitRunning(connect, p, 1, "the idle task is still running");
        List<Change> all = ConnectHarness.readUntil(connect, "\\Qonly.public.only_t\\E", Map.of(),
                l -> l.size() >= 500, Duration.ofSeconds(60));
        assertEquals(500, all.size());
        assertEquals(500, count(all, "only.public.only_t", "r"));
        assertEquals(before, EndToEndTest.rebuilt(all, "only.public.only_t"));
        connect.deleteConnector(p);
    }

    /**
     * when_needed snapshots a new slot once; resumed with its offsets and slot, it streams without
     * a second copy. (An interrupted copy is taken again after a real worker kill in
     * SnapshotKillTest; a slot newer than the offsets in TaskLifecycleTest and StartPlanTest.)
     */
    @Test
    void whenNeededSnapshotsOnceThenStreams() throws Exception {
        PgServer pg = server(18);
        String p = "wn";
        String topic = "wn.public.wn_t";
        EndToEndTest.sql(pg, "CREATE TABLE wn_t (id int PRIMARY KEY, v text, n int);"
                + "INSERT INTO wn_t SELECT g, 'v' || g, g FROM generate_series(1, 3) g");
        connect.configureConnector(p, config(pg, p, "when_needed"));
        ConnectHarness.awaitRunning(connect, p, 1, "connector did not start");
        EndToEndTest.awaitSlotActive(pg, p + "_slot");
        EndToEndTest.sql(pg, "INSERT INTO wn_t VALUES (4, 'v4', 4)");
        ConnectHarness.readUntil(connect, "\\Q" + topic + "\\E", Map.of(), l -> l.size() >= 4, Duration.ofSeconds(60));
        connect.stopConnector(p);
        ConnectHarness.awaitStopped(connect, p, "connector did not stop");
        connect.resumeConnector(p);
        ConnectHarness.awaitRunning(connect, p, 1, "connector did not resume");
        EndToEndTest.awaitSlotActive(pg, p + "_slot");
        EndToEndTest.sql(pg, "INSERT INTO wn_t VALUES (5, 'v5', 5)");
        List<Change> all = ConnectHarness.readUntil(connect, "\\Q" + topic + "\\E", Map.of(),
                l -> l.stream().anyMatch(c -> Integer.valueOf(5).equals(c.value().getStruct("after").get("id"))),
                Duration.ofSeconds(60));
        assertEquals(3, count(all, topic, "r"), "no second snapshot with a slot and offsets");
        assertEquals(expected(pg, "wn_t"), EndToEndTest.rebuilt(all, topic));
        connect.deleteConnector(p);
    }

    /**
     * always copies at every start: resumed with its offsets and slot, the task reads every table
     * again (the rows streamed meanwhile included), then streams on; the rebuilt table is the server's.
     */
    @ParameterizedTest(name = "PostgreSQL {0}")
    @ValueSource(ints = {18, 10})
    void alwaysSnapshotsAtEveryStart(int major) throws Exception {
        PgServer pg = server(major);
        String p = "al" + major;
        String table = p + "_t";
        String topic = p + ".public." + table;
        EndToEndTest.sql(pg, "CREATE TABLE " + table + " (id int PRIMARY KEY, v text, n int);"
                + "INSERT INTO " + table + " SELECT g, 'v' || g, g FROM generate_series(1, 3) g");
        connect.configureConnector(p, config(pg, p, "always"));
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(p, 1, "connector did not start");
        EndToEndTest.awaitSlotActive(pg, p + "_slot");
        EndToEndTest.sql(pg, "INSERT INTO " + table + " VALUES (4, 'v4', 4)");
        ConnectHarness.readUntil(connect, "\\Q" + topic + "\\E", Map.of(), l -> l.size() >= 4, Duration.ofSeconds(60));
        connect.stopConnector(p);
        connect.assertions().assertConnectorIsStopped(p, "connector did not stop");
        EndToEndTest.sql(pg, "UPDATE " + table + " SET v = 'changed' WHERE id = 2");
        connect.resumeConnector(p);
        connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(p, 1, "connector did not resume");
        EndToEndTest.awaitSlotActive(pg, p + "_slot");
        EndToEndTest.sql(pg, "INSERT INTO " + table + " VALUES (5, 'v5', 5)");
        List<Change> all = ConnectHarness.readUntil(connect, "\\Q" + topic + "\\E", Map.of(),
                l -> l.stream().anyMatch(c -> c.value() != null && Integer.valueOf(5).equals(c.value().getStruct("after").get("id"))),
                Duration.ofSeconds(60));
        assertEquals(3 + 4, count(all, topic, "r"), "a second copy of the 4 rows at the second start");
        assertEquals(expected(pg, table), EndToEndTest.rebuilt(all, topic));
        connect.deleteConnector(p);
    }

    /** slot.drop.on.stop=true, as Debezium's tests set it: a clean stop drops the slot; false (the default) keeps it. */
    @ParameterizedTest(name = "PostgreSQL {0}")
    @ValueSource(ints = {18, 10})
    void slotDropOnStopDropsTheSlotWhenTheTaskStops(int major) throws Exception {
        PgServer pg = server(major);
        String keep = "sk" + major;
        String drop = "sd" + major;
        for (String p : List.of(keep, drop)) {
            EndToEndTest.sql(pg, "CREATE TABLE " + p + "_t (id int PRIMARY KEY)");
            Map<String, String> c = config(pg, p, "never");
            c.put("slot.drop.on.stop", Boolean.toString(p.equals(drop)));
            connect.configureConnector(p, c);
        }
        for (String p : List.of(keep, drop)) {
            connect.assertions().assertConnectorAndExactlyNumTasksAreRunning(p, 1, "connector did not start");
            EndToEndTest.awaitSlotActive(pg, p + "_slot");
        }
        connect.stopConnector(keep);
        connect.stopConnector(drop);
        awaitNoSlot(pg, drop + "_slot");
        awaitSlotInactive(pg, keep + "_slot");
        assertEquals(1, EndToEndTest.query(pg, "SELECT 1 FROM pg_replication_slots WHERE slot_name = '" + keep
                + "_slot'").size(), "the slot is kept");
        connect.deleteConnector(keep);
        connect.deleteConnector(drop);
    }

    private static void awaitSlotInactive(PgServer pg, String slot) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < end) {
            if (!EndToEndTest.query(pg, "SELECT 1 FROM pg_replication_slots WHERE slot_name = '" + slot + "' AND NOT active")
                    .isEmpty()) return;
            Thread.sleep(100);
        }
        throw new AssertionError("slot " + slot + " is still active");
    }

    private static void awaitNoSlot(PgServer pg, String slot) throws Exception {
        long end = System.nanoTime() + Waits.CEILING.toNanos();
        while (System.nanoTime() < end) {
            if (EndToEndTest.query(pg, "SELECT 1 FROM pg_replication_slots WHERE slot_name = '" + slot + "'").isEmpty()) return;
            Thread.sleep(100);
        }
        throw new AssertionError("slot " + slot + " is still there");
    }

    private static void awaitConsistentPoint(PgServer pg, String slot) throws Exception {
        long end = System.nanoTime() + Waits.CEILING.toNanos();
        while (System.nanoTime() < end) {
            if (!EndToEndTest.query(pg, "SELECT 1 FROM pg_replication_slots WHERE slot_name = '" + slot
                    + "' AND confirmed_flush_lsn IS NOT NULL").isEmpty()) return;
            Thread.sleep(50);
        }
        throw new AssertionError("slot " + slot + " never reached its consistent point");
    }
}
