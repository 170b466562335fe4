package io.pgrepl.cli;

import static io.pgrepl.cli.Cli.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pgrepl.codec.Lsn;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.PgVersions;
import io.pgrepl.testkit.Waits;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code pgrepl slot create} and {@code pgrepl stream} against a hot standby (16+; the newest
 * major only, one primary and one standby for the class): the slot is created on the standby with
 * the primary's help when allowed, and streams what a slot on the primary streams, line for line.
 */
class StandbyCommandsTest {
    private static PgServer primary;
    private static PgServer standby;

    @BeforeAll
    static void start() throws Exception {
        Assumptions.assumeTrue(PgVersions.matrix().contains(18), "decoding on a standby: 16+, run on 18");
        primary = PgServer.builder().version(18).start();
        primary.sql("postgres", "CREATE TABLE csb (id int PRIMARY KEY, v text); CREATE PUBLICATION csb_pub FOR TABLE csb");
        standby = primary.startStandby("csb_phys");
    }

    @AfterAll
    static void stop() throws Exception {
        if (standby != null) standby.close();
        if (primary != null) primary.close();
    }

    /** The primary's URL with every statement of its sessions logged: the log shows what pgrepl asked. */
    private static String loggedPrimaryUrl() {
        return Cli.url(primary) + "?options=-c%20log_statement%3Dall";
    }

    private static long standbySnapshotsLogged() throws Exception {
        try (Stream<String> lines = Files.lines(primary.logFile())) {
            return lines.filter(l -> l.contains("statement: SELECT pg_catalog.pg_log_standby_snapshot()")).count();
        }
    }

    @Test
    void theOptInIsExplicit() {
        Cli.Result noFlag = run("slot", "create", Cli.url(standby), "x", "--logical", "pgoutput", "--primary", Cli.url(primary));
        assertEquals(2, noFlag.rc(), noFlag.err());
        assertTrue(noFlag.err().contains("--log-standby-snapshot"), noFlag.err());
        Cli.Result noPrimary = run("slot", "create", Cli.url(standby), "x", "--logical", "pgoutput", "--log-standby-snapshot");
        assertEquals(2, noPrimary.rc(), noPrimary.err());
        assertTrue(noPrimary.err().contains("--primary"), noPrimary.err());
        Cli.Result stream = run("stream", Cli.url(standby), "-S", "x", "-P", "csb_pub", "--primary", Cli.url(primary),
                "--log-standby-snapshot");
        assertEquals(2, stream.rc(), "needs --create-slot: " + stream.err());
        Cli.Result export = run("stream", Cli.url(standby), "-S", "x", "-P", "csb_pub", "--create-slot", "--snapshot",
                "--primary", Cli.url(primary), "--log-standby-snapshot");
        assertEquals(2, export.rc(), "not with an exported snapshot yet: " + export.err());
        assertTrue(export.err().contains("--snapshot=incremental"), export.err());
    }

    @Test
    void streamCreatesItsSlotOnTheStandbyWithThePrimarysHelp() throws Exception {
        long before = standbySnapshotsLogged();
        Cli.Result first = run("stream", Cli.url(standby), "-S", "csb_new", "-P", "csb_pub", "--create-slot",
                "--primary", loggedPrimaryUrl(), "--log-standby-snapshot", "--idle-exit", "1");
        assertEquals(0, first.rc(), first.err());
        assertTrue(standbySnapshotsLogged() > before, "the primary was asked for a standby snapshot");
        assertEquals("logical", Cli.query(standby, "SELECT slot_type FROM pg_replication_slots WHERE slot_name = 'csb_new'"));
        primary.sql("postgres", "INSERT INTO csb VALUES (5001, 'after')");
        waitReplayed(Cli.query(primary, "SELECT pg_current_wal_lsn()"));
        Cli.Result next = run("stream", Cli.url(standby), "-S", "csb_new", "-P", "csb_pub", "--idle-exit", "1");
        assertEquals(0, next.rc(), next.err());
        assertEquals(List.of("begin", "insert", "commit"), next.types(), next.out());
        assertEquals(5001, lastOfType(next.lines(), "insert").get("new").get("id").asInt());
    }

    @Test
    void aSlotCreatedOnTheStandbyStreamsWhatThePrimarysSlotStreams() throws Exception {
        long before = standbySnapshotsLogged();
        Cli.Result created = run("slot", "create", Cli.url(standby), "csb_slot", "--logical", "pgoutput",
                "--primary", loggedPrimaryUrl(), "--log-standby-snapshot");
        assertEquals(0, created.rc(), created.err());
        JsonNode slot = Cli.parse(created.out());
        assertEquals("csb_slot", slot.get("slot_name").asText());
        assertTrue(Lsn.parse(slot.get("consistent_point").asText()) > 0, created.out());
        assertTrue(standbySnapshotsLogged() > before, "the primary was asked for a standby snapshot");
        assertEquals("t", Cli.query(standby, "SELECT pg_is_in_recovery()"));
        assertEquals("logical", Cli.query(standby, "SELECT slot_type FROM pg_replication_slots WHERE slot_name = 'csb_slot'"));
        Cli.Result ref = run("slot", "create", Cli.url(primary), "csb_ref", "--logical", "pgoutput");
        assertEquals(0, ref.rc(), ref.err());

        for (int tx = 0; tx < 5; tx++) {
            primary.sql("postgres", "INSERT INTO csb SELECT g, 'v' || g FROM generate_series(" + (tx * 20 + 1) + ", " + (tx * 20 + 20) + ") g");
        }
        primary.sql("postgres", "UPDATE csb SET v = 'changed' WHERE id = 7");
        String written = Cli.query(primary, "SELECT pg_current_wal_lsn()");
        waitReplayed(written);

        Cli.Result fromStandby = run("stream", Cli.url(standby), "-S", "csb_slot", "-P", "csb_pub", "--idle-exit", "2");
        Cli.Result fromPrimary = run("stream", Cli.url(primary), "-S", "csb_ref", "-P", "csb_pub", "--idle-exit", "2");
        assertEquals(0, fromStandby.rc(), fromStandby.err());
        assertEquals(0, fromPrimary.rc(), fromPrimary.err());
        List<String> types = fromStandby.types();
        assertEquals(100, types.stream().filter("insert"::equals).count(), fromStandby.out());
        assertEquals(6, types.stream().filter("commit"::equals).count(), fromStandby.out());
        assertEquals("changed", lastOfType(fromStandby.lines(), "update").get("new").get("v").asText());
        assertEquals(fromPrimary.lines(), fromStandby.lines(), "line for line what the primary's slot streams");
    }

    private static JsonNode lastOfType(List<JsonNode> lines, String type) {
        List<JsonNode> of = new ArrayList<>();
        for (JsonNode n : lines) if (type.equals(n.get("type").asText())) of.add(n);
        assertTrue(!of.isEmpty(), "no " + type + " line");
        return of.get(of.size() - 1);
    }

    private static void waitReplayed(String lsn) throws Exception {
        long deadline = System.nanoTime() + Waits.CEILING.toNanos();
        while (Long.compareUnsigned(Lsn.parse(Cli.query(standby, "SELECT pg_last_wal_replay_lsn()")), Lsn.parse(lsn)) < 0) {
            assertTrue(System.nanoTime() < deadline, "the standby did not replay " + lsn);
            Thread.onSpinWait();
        }
    }
}
