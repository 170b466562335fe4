package io.pgrepl.cli;

import io.pgrepl.testkit.PgServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code pgrepl stream} against a real PostgreSQL 17: output, stop conditions, acknowledgement, errors. */
class StreamCommandTest {
    private static PgServer server;

    @BeforeAll
    static void start() {
        server = PgServer.builder().version(17).start();
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
    }

    private record Result(int rc, String out, String err) {}

    private static Result run(String... args) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int rc = Main.run(args, new PrintStream(o, true, StandardCharsets.UTF_8), new PrintStream(e, true, StandardCharsets.UTF_8));
        return new Result(rc, o.toString(StandardCharsets.UTF_8), e.toString(StandardCharsets.UTF_8));
    }

    private static String url() {
        return server.url(server.superuser(), "postgres");
    }

    @Test
    void badArgumentsAreUsageErrors() {
        assertEquals(2, run("stream").rc());
        assertEquals(2, run("stream", url(), "--publication", "p").rc());
        assertEquals(2, run("stream", url(), "--slot", "s", "--publication", "p", "--streaming", "maybe").rc());
        assertEquals(2, run("stream", url(), "--slot", "s", "--publication", "p", "--temporary").rc());
        Result r = run("stream", url(), "--slot", "s", "--publication", "p", "--end-lsn", "nope");
        assertEquals(2, r.rc());
        assertTrue(r.err().contains("--end-lsn"), r.err());
        assertThrows(UsageException.class, () -> StreamCommand.parse(new String[] {"u", "--slot", "s", "--publication",
                "p", "--create-slot", "--temporary", "--reconnect"}));
    }

    @Test
    void idleExitAfterPrintingAndAcknowledgingEverything() throws Exception {
        server.sql("postgres", "CREATE TABLE sc (id int PRIMARY KEY, v text); CREATE PUBLICATION sc_pub FOR TABLE sc");
        server.sql("postgres", "SELECT pg_create_logical_replication_slot('sc', 'pgoutput')");
        server.sql("postgres", "INSERT INTO sc VALUES (1, 'a'), (2, 'b')");
        server.sql("postgres", "UPDATE sc SET v = 'c' WHERE id = 2");
        Result r = run("stream", url(), "--slot", "sc", "--publication", "sc_pub", "--idle-exit", "2");
        assertEquals(0, r.rc(), r.err());
        List<String> lines = r.out().lines().toList();
        assertEquals(List.of("begin", "relation", "insert", "insert", "commit", "begin", "update", "commit"),
                lines.stream().map(l -> l.replaceAll("^\\{\"type\":\"([a-z_]+)\".*$", "$1")).toList(), r.out());
        assertTrue(lines.get(3).contains("\"new\":{\"id\":\"2\",\"v\":\"b\"}"), lines.get(3));
        // everything printed was acknowledged: a second run prints nothing
        Result again = run("stream", url(), "--slot", "sc", "--publication", "sc_pub", "--idle-exit", "1");
        assertEquals(0, again.rc(), again.err());
        assertEquals("", again.out());
    }

    @Test
    void endLsnStopsAfterThatCommitWithATemporarySlot() throws Exception {
        server.sql("postgres", "CREATE TABLE se (id int PRIMARY KEY); CREATE PUBLICATION se_pub FOR TABLE se");
        // --create-slot --temporary and a start position: the slot only sees changes made after it
        // exists, so create it first through a quick run with an immediate idle exit
        Result none = run("stream", url(), "--slot", "se_tmp", "--publication", "se_pub", "--create-slot",
                "--temporary", "--idle-exit", "1");
        assertEquals(0, none.rc(), none.err());
        assertEquals("", none.out());
        server.sql("postgres", "SELECT pg_create_logical_replication_slot('se', 'pgoutput')");
        server.sql("postgres", "INSERT INTO se VALUES (1)");
        server.sql("postgres", "INSERT INTO se VALUES (2)");
        server.sql("postgres", "INSERT INTO se VALUES (3)");
        Result all = run("stream", url(), "--slot", "se", "--publication", "se_pub", "--idle-exit", "1");
        assertEquals(0, all.rc(), all.err());
        // that run acknowledged everything; end-lsn on fresh changes:
        server.sql("postgres", "INSERT INTO se VALUES (4)");
        server.sql("postgres", "INSERT INTO se VALUES (5)");
        String firstCommitEnd = null;
        Result peek = run("stream", url(), "--slot", "se", "--publication", "se_pub", "--end-lsn", "0/1");
        assertEquals(0, peek.rc(), peek.err());
        for (String l : peek.out().lines().toList()) {
            if (l.startsWith("{\"type\":\"commit\"")) {
                firstCommitEnd = l.replaceAll("^.*\"end_lsn\":\"([0-9A-F/]+)\".*$", "$1");
                break;
            }
        }
        assertEquals(1, peek.out().lines().filter(l -> l.startsWith("{\"type\":\"commit\"")).count(),
                "exits after the first commit at or past --end-lsn: " + peek.out());
        assertTrue(peek.out().contains("\"id\":\"4\""), peek.out());
        assertFalse(peek.out().contains("\"id\":\"5\""), peek.out());
        assertTrue(firstCommitEnd != null);
        Result rest = run("stream", url(), "--slot", "se", "--publication", "se_pub", "--idle-exit", "1");
        assertTrue(rest.out().contains("\"id\":\"5\"") && !rest.out().contains("\"id\":\"4\""),
                "the commit that ended the run was acknowledged: " + rest.out());
        // the temporary slot went away with its connection
        Result gone = run("stream", url(), "--slot", "se_tmp", "--publication", "se_pub", "--idle-exit", "1");
        assertEquals(1, gone.rc());
        assertTrue(gone.err().contains("42704"), gone.err());
    }

    @Test
    void reconnectSurvivesATerminatedWalsender() throws Exception {
        server.sql("postgres", "CREATE TABLE sr (id int PRIMARY KEY); CREATE PUBLICATION sr_pub FOR TABLE sr");
        server.sql("postgres", "SELECT pg_create_logical_replication_slot('sr', 'pgoutput')");
        server.sql("postgres", "INSERT INTO sr VALUES (1)");
        Result[] result = new Result[1];
        Thread t = new Thread(() -> result[0] = run("stream", url(), "--slot", "sr", "--publication", "sr_pub",
                "--reconnect", "--idle-exit", "5"));
        t.start();
        Thread.sleep(2000);
        server.sql("postgres", "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = 'sr'");
        Thread.sleep(500);
        server.sql("postgres", "INSERT INTO sr VALUES (2)");
        t.join(60_000);
        assertFalse(t.isAlive());
        assertEquals(0, result[0].rc(), result[0].err());
        assertTrue(result[0].out().contains("\"id\":\"1\""), result[0].out());
        assertTrue(result[0].out().contains("\"id\":\"2\""), "row after the reconnect: " + result[0].out());
    }

    @Test
    void serverErrorIsOneLineWithSqlStateAndNoSecret() {
        Result r = run("stream", url(), "--slot", "no_such_slot", "--publication", "p");
        assertEquals(1, r.rc());
        List<String> lines = r.err().lines().filter(l -> l.startsWith("pgrepl")).toList();
        assertEquals(1, lines.size(), r.err());
        assertTrue(lines.get(0).contains("42704"), lines.get(0));
        assertFalse(r.err().contains(server.superuser().password()), "no secret");
        assertEquals("", r.out());
    }
}
