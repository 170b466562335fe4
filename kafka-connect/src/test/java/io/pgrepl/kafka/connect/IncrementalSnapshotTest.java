package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgConnection;
import io.pgrepl.codec.Lsn;
import io.pgrepl.kafka.connect.ConnectHarness.Change;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.Waits;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Incremental snapshots through a real Connect worker, a real Kafka and real PostgreSQL (18 with
 * message watermarks, 10 with the signal table's): snapshot.mode=no_data, a Debezium signal row
 * starts the snapshot of two tables while a workload inserts, updates, deletes, changes keys and
 * truncates; the tables rebuilt from the topics' JSON equal the source, no read overtakes a later
 * change of its key, the slot is confirmed while the snapshot runs, and the notifications say so.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IncrementalSnapshotTest {
    private EmbeddedConnectCluster connect;
    private final Map<Integer, PgServer> servers = new HashMap<>();

    @BeforeAll
    void start() {
        connect = ConnectHarness.start("inc", 1, Map.of());
    }

    @AfterAll
    void stop() {
        if (connect != null) connect.stop();
        servers.values().forEach(PgServer::close);
    }

    PgServer server(int major) {
        return servers.computeIfAbsent(major, m -> PgServer.start(PgServer.builder().version(m).build()));
    }

    static java.util.stream.Stream<Integer> majors() {
        return ConnectHarness.newestAndOldest();
    }

    static Map<String, String> config(PgServer pg, String p, int chunk) {
        Map<String, String> c = EndToEndTest.connectorConfig(pg, p);
        c.put("snapshot.mode", "no_data");
        c.put("table.include.list", "public\\." + p + "_(big|small|end)");
        c.put("signal.data.collection", "public." + p + "_signal");
        c.put("incremental.snapshot.chunk.size", Integer.toString(chunk));
        c.put("notification.enabled.channels", "sink");
        c.put("notification.sink.topic.name", p + ".notifications");
        c.put("status.update.interval.ms", "200"); // confirmed_flush_lsn shows a confirmation once it is reported
        return c;
    }

    static String createTables(PgServer pg, String p, int big, int small) throws Exception {
        EndToEndTest.sql(pg, "CREATE TABLE " + p + "_big (id int PRIMARY KEY, v text, n int);"
                + "INSERT INTO " + p + "_big SELECT g, 'v' || g, 0 FROM generate_series(1, " + big + ") g;"
                + "CREATE TABLE " + p + "_small (id int PRIMARY KEY, v text, n int);"
                + "INSERT INTO " + p + "_small SELECT g, 's' || g, 0 FROM generate_series(1, " + small + ") g;"
                + "CREATE TABLE " + p + "_end (id int PRIMARY KEY, v text, n int);"
                + "CREATE TABLE " + p + "_signal (id varchar(42) PRIMARY KEY, type varchar(32) NOT NULL, data varchar(2048))");
        return p + "_signal";
    }

    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("majors")
    void signalledSnapshotUnderConcurrentWrites(int major) throws Exception {
        
        PgServer pg = server(major);
        String p = "inc" + major;
        int n = 25_000;
        createTables(pg, p, n, 200);
        connect.configureConnector(p, config(pg, p, 10)); // 2,500 chunks of the big table: the slot must move while they run (500 ran out on CI); the small one stays 20 chunks (at chunk 2 its truncates superseded every read)
        ConnectHarness.awaitRunning(connect, p, 1, "connector did not start");
        EndToEndTest.awaitSlotActive(pg, p + "_slot");

        AtomicBoolean running = new AtomicBoolean(true);
        AtomicInteger done = new AtomicInteger();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        String small = p + ".public." + p + "_small";
        // A truncate and refill inside one of the small table's chunk windows leaves that chunk no read
        // (18 discards it and reads it again; 10 decodes no TRUNCATE, so the refill supersedes every key),
        // and under load they overlapped every window. So the first truncate waits until a read of the
        // small table is in Kafka; its updates and the big table's writes run from the start.
        AtomicBoolean smallRead = new AtomicBoolean();
        AtomicInteger truncates = new AtomicInteger();
        Thread smallReads = new Thread(() -> {
            try {
                ConnectHarness.readUntil(connect, "\\Q" + small + "\\E", Map.of(),
                        l -> !IncrementalChecks.reads(l, small).isEmpty(), Duration.ofSeconds(120), 0);
                smallRead.set(true);
            } catch (Throwable e) {
                if (!(e instanceof org.apache.kafka.common.errors.InterruptException)) failed.compareAndSet(null, e);
            }
        }, "small-reads");
        Thread workload = new Thread(() -> {
            try (PgConnection c = PgConnection.connect(pg.url(pg.superuser(), "postgres")).toCompletableFuture().get(30, TimeUnit.SECONDS)) {
                int lastTruncate = -500;
                for (int i = 1; running.get(); i++) {
                    String t = p + "_big";
                    String sql = switch (i % 5) {
                        case 0 -> "INSERT INTO " + t + " VALUES (" + (n + i) + ", 'w" + i + "', " + i + ")";
                        // Hot keys, one per chunk, updated over and over: a read handed over late shows.
                        case 1 -> "UPDATE " + t + " SET v = 'u" + i + "', n = " + i + " WHERE id = " + ((i / 5 % 50) * 100 + 50);
                        case 2 -> "DELETE FROM " + t + " WHERE id = " + (i * 104_729 % n + 1);
                        case 3 -> "UPDATE " + t + " SET id = -id, n = " + i + " WHERE id = " + (i * 31 % n + 1); // a key change
                        // A truncate of the small table, refilled in the same transaction: once its first read is
                        // out, at once (its later chunks may still be open) and then every 500th write.
                        default -> smallRead.get() && i - lastTruncate >= 500
                                ? "BEGIN; TRUNCATE " + p + "_small; INSERT INTO " + p + "_small SELECT g, 't" + i + "', " + i
                                        + " FROM generate_series(1, 200) g; COMMIT"
                                : "UPDATE " + p + "_small SET n = " + i + " WHERE id = " + (i % 200 + 1);
                    };
                    c.query(sql).toCompletableFuture().get(30, TimeUnit.SECONDS);
                    if (sql.contains("TRUNCATE")) {
                        lastTruncate = i;
                        truncates.incrementAndGet();
                    }
                    done.incrementAndGet();
                }
            } catch (Throwable e) {
                failed.set(e);
            }
        }, "workload");
        smallReads.start();
        workload.start();
        long confirmedAtSignal;
        try {
            while (done.get() < 50 && failed.get() == null) Thread.sleep(10);
            confirmedAtSignal = EndToEndTest.confirmedLsn(pg, p + "_slot");
            // Debezium's signal, verbatim.
            EndToEndTest.sql(pg, "INSERT INTO " + p + "_signal VALUES ('ad-hoc-1', 'execute-snapshot',"
                    + " '{\"data-collections\": [\"public." + p + "_small\", \"public." + p + "_big\"], \"type\": \"incremental\"}')");
            // The slot is confirmed while the snapshot runs: before the big table's scan completed.
            long end = System.nanoTime() + Waits.CEILING.toNanos();
            while (Lsn.compare(EndToEndTest.confirmedLsn(pg, p + "_slot"), confirmedAtSignal) <= 0) {
                assertTrue(System.nanoTime() < end, "confirmed_flush_lsn never moved during the snapshot");
                Thread.sleep(50);
            }
            long movedAt = System.currentTimeMillis();
            // Writes go on until the snapshot is done.
            List<Change> notes = ConnectHarness.readUntil(connect, "\\Q" + p + ".notifications\\E", Map.of(),
                    l -> IncrementalChecks.notifications(l, p + ".notifications", null).contains("COMPLETED"), Duration.ofSeconds(120), 0);
            // The notification's own timestamp, not when this reader saw it (a consumer joins in seconds).
            long scanned = IncrementalChecks.notificationTime(notes, p + ".notifications", "public." + p + "_big", "TABLE_SCAN_COMPLETED");
            assertTrue(scanned > movedAt, () -> "the big table's scan completed before the slot moved: moved at " + movedAt
                    + ", scan completed at " + scanned);
        } finally {
            running.set(false);
            workload.join(30_000);
            smallReads.interrupt();
            smallReads.join(30_000);
        }
        assertNull(failed.get(), () -> "workload or the small table's reader failed: " + failed.get());
        assertTrue(smallRead.get(), "a read of the small table reached Kafka while the writes ran");
        assertTrue(truncates.get() > 0, "the small table was truncated while the snapshot ran");
        EndToEndTest.sql(pg, "INSERT INTO " + p + "_end VALUES (1, 'end', 1)");

        List<Change> all = ConnectHarness.readUntil(connect, "\\Q" + p + ".\\E.*", Map.of(),
                l -> l.stream().anyMatch(c -> c.topic().endsWith("_end")), Duration.ofSeconds(90));
        String big = p + ".public." + p + "_big";
        IncrementalChecks.assertRebuilt(pg, p + "_big", all, big);
        IncrementalChecks.assertRebuilt(pg, p + "_small", all, small);
        IncrementalChecks.readsNeverOvertake(all, big);
        IncrementalChecks.readsNeverOvertake(all, small);
        Map<Integer, Integer> bigReads = IncrementalChecks.reads(all, big);
        assertTrue(bigReads.size() > n / 2, "most rows came as reads: " + bigReads.size());
        assertEquals(Set.of(1), Set.copyOf(bigReads.values()), "no row of the big table was read twice");
        assertTrue(!IncrementalChecks.reads(all, small).isEmpty(), "the small table was read");
        // The signal table is in the publication but not captured: none of its rows (signals, watermarks) is sent.
        assertTrue(all.stream().noneMatch(c -> c.topic().contains("_signal")), "signal rows are not change records");
        for (String t : List.of("public." + p + "_small", "public." + p + "_big")) {
            List<String> kinds = IncrementalChecks.notifications(all, p + ".notifications", t);
            assertEquals("STARTED", kinds.get(0), t + ": " + kinds);
            assertTrue(kinds.contains("IN_PROGRESS") && kinds.contains("TABLE_SCAN_COMPLETED"), t + ": " + kinds);
        }
        List<String> allKinds = IncrementalChecks.notifications(all, p + ".notifications", null);
        assertEquals("COMPLETED", allKinds.get(allKinds.size() - 1), allKinds.toString());
        assertDebeziumFields(all, p + ".notifications", "public." + p + "_big", n, bigReads.size());
        connect.deleteConnector(p);
    }

    /**
     * Debezium 3.6's per-key fields: IN_PROGRESS names the table in progress, its maximum key (at
     * least the {@code rows} loaded before the signal; inserts add larger keys) and the chunk's last
     * key, which grows chunk by chunk; TABLE_SCAN_COMPLETED names the scanned table
     * and counts at least the reads the topic holds.
     */
    static void assertDebeziumFields(List<Change> all, String topic, String table, int rows, int reads) {
        List<com.fasterxml.jackson.databind.JsonNode> progress = IncrementalChecks.notificationData(all, topic, table, "IN_PROGRESS");
        assertTrue(progress.size() > 1, "IN_PROGRESS for " + table + ": " + progress.size());
        long lastKey = Long.MIN_VALUE;
        for (com.fasterxml.jackson.databind.JsonNode d : progress) {
            assertEquals(table, d.get("current_collection_in_progress").asText());
            assertTrue(List.of(d.get("data_collections").asText().split(",")).contains(table), d.toString());
            assertEquals(topic.substring(0, topic.indexOf('.')), d.get("connector_name").asText(), "topic.prefix, Debezium's logical name");
            long max = Long.parseLong(d.get("maximum_key").asText());
            assertTrue(max >= rows, "maximum_key " + max + " below the " + rows + " keys loaded");
            if (d.get("last_processed_key").asText().equals("<null>")) {
                assertEquals(Long.MIN_VALUE, lastKey, "no key only before the first chunk's reads: " + d);
                continue;
            }
            long last = Long.parseLong(d.get("last_processed_key").asText());
            // Not bounded by maximum_key: the engine reads on to the table's end, keys inserted since included.
            assertTrue(last >= lastKey, "last_processed_key " + last + " after " + lastKey);
            lastKey = last;
        }
        assertTrue(lastKey > 0, "some IN_PROGRESS named its chunk's last key");
        List<com.fasterxml.jackson.databind.JsonNode> scanned = IncrementalChecks.notificationData(all, topic, table, "TABLE_SCAN_COMPLETED");
        assertEquals(1, scanned.size(), scanned.toString());
        com.fasterxml.jackson.databind.JsonNode d = scanned.get(0);
        assertEquals(table, d.get("scanned_collection").asText());
        assertTrue(List.of(d.get("data_collections").asText().split(",")).contains(table), d.toString());
        assertEquals("SUCCEEDED", d.get("status").asText());
        assertTrue(Long.parseLong(d.get("total_rows_scanned").asText()) >= reads, d + " vs " + reads + " reads");
    }

    /**
     * No change but the snapshot's own: its watermark transactions carry no record, so only a
     * heartbeat's offset can cover them; the slot must still be confirmed while the reads flow.
     */
    @org.junit.jupiter.api.Test
    void slotConfirmedWhileAnIdleDatabaseIsSnapshotted() throws Exception {
        int major = ConnectHarness.newestAndOldest().findFirst().orElseThrow();
        PgServer pg = server(major);
        String p = "idle" + major;
        createTables(pg, p, 60_000, 10); // some 3,000 chunks: long enough to see the slot move
        Map<String, String> cfg = config(pg, p, 20);
        cfg.put("heartbeat.interval.ms", "1000");
        connect.configureConnector(p, cfg);
        ConnectHarness.awaitRunning(connect, p, 1, "connector did not start");
        EndToEndTest.awaitSlotActive(pg, p + "_slot");
        EndToEndTest.sql(pg, "INSERT INTO " + p + "_signal VALUES ('idle-1', 'execute-snapshot',"
                + " '{\"data-collections\": [\"public." + p + "_big\"], \"type\": \"incremental\"}')");
        // The insert position, not pg_current_wal_lsn(): that is the write position, behind it with synchronous_commit=off.
        long afterSignal = Lsn.parse(EndToEndTest.query(pg, "SELECT pg_current_wal_insert_lsn()::text").get(0).get(0));
        String big = "public." + p + "_big";
        ConnectHarness.readUntil(connect, "\\Q" + p + ".notifications\\E", Map.of(),
                l -> IncrementalChecks.notifications(l, p + ".notifications", big).contains("IN_PROGRESS"), Duration.ofSeconds(60), 0);
        long end = System.nanoTime() + Waits.CEILING.toNanos();
        long confirmed;
        while (Lsn.compare(confirmed = EndToEndTest.confirmedLsn(pg, p + "_slot"), afterSignal) < 0) {
            assertTrue(System.nanoTime() < end, "confirmed_flush_lsn never passed the signal");
            Thread.sleep(20);
        }
        ConnectHarness.readUntil(connect, "\\Q" + p + ".notifications\\E", Map.of(),
                l -> IncrementalChecks.notifications(l, p + ".notifications", null).contains("COMPLETED"), Duration.ofSeconds(120), 0);
        long firstPast = confirmed;
        long snapshotEnd = Lsn.parse(EndToEndTest.query(pg, "SELECT pg_current_wal_insert_lsn()::text").get(0).get(0));
        // The snapshot's watermarks fill the WAL between the signal and its end; confirmed only at the end
        // (the defect), the first confirmation past the signal would lie near snapshotEnd.
        assertTrue(firstPast - afterSignal < (snapshotEnd - afterSignal) / 2,
                () -> "the slot was first confirmed past the signal at " + Lsn.format(firstPast) + ", the snapshot's WAL spans "
                        + Lsn.format(afterSignal) + " to " + Lsn.format(snapshotEnd));
        connect.deleteConnector(p);
    }
}
