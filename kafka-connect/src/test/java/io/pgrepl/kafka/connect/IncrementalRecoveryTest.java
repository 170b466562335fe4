package io.pgrepl.kafka.connect;

import io.pgrepl.kafka.connect.offsets.Position;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.kafka.connect.ConnectHarness.Change;
import io.pgrepl.testkit.PgServer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Incremental snapshots when something goes wrong, through a real Connect worker, Kafka and
 * PostgreSQL (18 and 10): a slot lost mid-snapshot and re-created under slot.lost.handling=snapshot
 * reads every table again from its start, not from the progress stored before the loss; a table whose
 * snapshot fails is never silent: a WARN naming it and the reason, the notification, and the task
 * streaming on, or under incremental.snapshot.failure.handling.mode=fail a failed task naming both.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class IncrementalRecoveryTest {
    private EmbeddedConnectCluster connect;
    private final Map<Integer, PgServer> servers = new HashMap<>();

    @BeforeAll
    void start() {
        connect = ConnectHarness.start("increc", 1, Map.of());
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

    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("majors")
    void aLostSlotReadsEveryTableAgainFromItsStart(int major) throws Exception {
        PgServer pg = server(major);
        String p = "lost" + major;
        int rows = 30_000;
        IncrementalSnapshotTest.createTables(pg, p, rows, 10);
        String notes = p + ".notifications";
        String big = p + ".public." + p + "_big";
        Map<String, String> c = IncrementalSnapshotTest.config(pg, p, 10); // 3,000 chunks: the stop comes mid-table
        c.put("snapshot.mode", "initial");
        c.put("snapshot.initial.method", "incremental");
        c.put("slot.lost.handling", "snapshot");
        connect.configureConnector(p, c);
        ConnectHarness.awaitRunning(connect, p, 1, "connector did not start");
        ConnectHarness.readUntil(connect, "\\Q" + notes + "\\E", Map.of(), l -> IncrementalChecks.notifications(l, notes,
                "public." + p + "_big").stream().filter("IN_PROGRESS"::equals).count() >= 5, Duration.ofSeconds(90), 0);
        connect.stopConnector(p);
        ConnectHarness.awaitStopped(connect, p, "connector did not stop");

        // The stored progress is mid-way through the big table: a last key, no end.
        String state = storedState(p);
        String range = state.lines().filter(l -> l.startsWith("r ")).findFirst().orElseThrow(() -> new AssertionError(state));
        String lastKey = range.split(" ")[3];
        assertTrue(lastKey.startsWith("k,") && Integer.parseInt(lastKey.substring(2)) < rows, "stopped mid-table: " + state);

        // The slot is lost; the connector re-creates it and reads everything again.
        pg.dropReplicationSlot(p + "_slot"); // once the stopped task's walsender let go of it
        connect.resumeConnector(p);
        ConnectHarness.awaitRunning(connect, p, 1, "connector did not resume");
        List<Change> all = ConnectHarness.readUntil(connect, "\\Q" + p + ".\\E(public\\..*|notifications)", Map.of(),
                l -> IncrementalChecks.notifications(l, notes, null).contains("COMPLETED")
                        && IncrementalChecks.reads(l, big).size() == rows, Duration.ofSeconds(180));
        Map<Integer, Integer> reads = IncrementalChecks.reads(all, big);
        // Key 1 came in the first run's first chunk; the second run read it again from the table's start.
        assertEquals(2, reads.get(1), "the big table was read again from its start after the slot was lost");
        assertEquals(1, IncrementalChecks.notifications(all, notes, "public." + p + "_big").stream()
                .filter("TABLE_SCAN_COMPLETED"::equals).count(), "one complete scan of the big table");
        IncrementalChecks.assertRebuilt(pg, p + "_big", all, big);
        connect.deleteConnector(p);
    }

    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("majors")
    void aFailedTableIsNeverSilent(int major) throws Exception {
        PgServer pg = server(major);
        String p = "tfail" + major;
        IncrementalSnapshotTest.createTables(pg, p, 200, 10);
        EndToEndTest.sql(pg, "CREATE TABLE " + p + "_nokey (x int, label varchar(10)); INSERT INTO " + p + "_nokey VALUES (1, 'one')");
        String notes = p + ".notifications";
        String nokey = "public." + p + "_nokey";
        Map<String, String> c = IncrementalSnapshotTest.config(pg, p, 50);
        c.put("table.include.list", "public\\." + p + "_(big|small|end|nokey)");
        java.io.PrintStream err = System.err;
        java.io.ByteArrayOutputStream logged = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(new java.io.OutputStream() { // the worker's log (slf4j-simple writes to System.err), kept too
            @Override
            public void write(int b) {
                err.write(b);
                synchronized (logged) {
                    logged.write(b);
                }
            }

            @Override
            public void write(byte[] b, int off, int len) {
                err.write(b, off, len);
                synchronized (logged) {
                    logged.write(b, off, len);
                }
            }
        }, true));
        try {
            connect.configureConnector(p, c);
            ConnectHarness.awaitRunning(connect, p, 1, "connector did not start");
            EndToEndTest.awaitSlotActive(pg, p + "_slot");
            EndToEndTest.sql(pg, "INSERT INTO " + p + "_signal VALUES ('f-1', 'execute-snapshot', '{\"data-collections\": [\""
                    + nokey + "\", \"public." + p + "_small\"], \"type\": \"incremental\"}')");
            List<Change> notified = ConnectHarness.readUntil(connect, "\\Q" + notes + "\\E", Map.of(),
                    l -> IncrementalChecks.notifications(l, notes, null).contains("COMPLETED"), Duration.ofSeconds(90), 0);
            var scan = IncrementalChecks.notificationData(notified, notes, nokey, "TABLE_SCAN_COMPLETED");
            assertEquals(1, scan.size(), scan.toString());
            assertEquals("SQL_EXCEPTION", scan.get(0).get("status").asText(), scan.toString());
            assertTrue(scan.get(0).get("error").asText().contains("no primary key"), scan.toString());
            // The task streams on: a later change arrives, and the task still runs.
            EndToEndTest.sql(pg, "INSERT INTO " + p + "_end VALUES (1, 'end', 1)");
            ConnectHarness.readUntil(connect, "\\Q" + p + ".public." + p + "_end\\E", Map.of(), l -> !l.isEmpty(), Duration.ofSeconds(60), 0);
            assertEquals("RUNNING", connect.connectorStatus(p).tasks().get(0).state());
            String log;
            synchronized (logged) {
                log = logged.toString(java.nio.charset.StandardCharsets.UTF_8);
            }
            String warned = log.lines()
                    .filter(l -> l.contains(" WARN ") && l.contains(nokey) && l.contains("streaming goes on")).findFirst().orElse(null);
            assertTrue(warned != null && warned.contains("no primary key"), "a WARN names the table and the reason");
        } finally {
            System.setErr(err);
        }

        // Told to fail: the task fails, not retried, naming the table and the reason.
        c.put("incremental.snapshot.failure.handling.mode", "fail");
        connect.configureConnector(p, c);
        ConnectHarness.awaitRunning(connect, p, 1, "connector did not restart");
        EndToEndTest.awaitSlotActive(pg, p + "_slot");
        EndToEndTest.sql(pg, "INSERT INTO " + p + "_signal VALUES ('f-2', 'execute-snapshot', '{\"data-collections\": [\""
                + nokey + "\"], \"type\": \"incremental\"}')");
        connect.assertions().assertConnectorIsRunningAndTasksHaveFailed(p, 1, "the task did not fail");
        String trace = connect.connectorStatus(p).tasks().get(0).trace();
        assertTrue(trace.contains("incremental snapshot of " + nokey + " failed") && trace.contains("no primary key")
                && trace.contains("incremental.snapshot.failure.handling.mode=fail"), trace);
        connect.deleteConnector(p);
    }

    private String storedState(String connector) {
        var o = connect.connectorOffsets(connector).offsets();
        assertEquals(1, o.size(), "one source partition: " + o);
        Object s = o.get(0).offset().get(Position.INCREMENTAL_STATE);
        assertTrue(s instanceof String, "an incremental state is stored: " + o.get(0).offset());
        return (String) s;
    }

}
