package io.pgrepl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pgrepl.testkit.PgServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How a {@code pgrepl stream --snapshot=incremental} (or {@code --accept-signals}) run starts and
 * ends, on PostgreSQL 18: a table that cannot be read makes the exit code non-zero and is named
 * once on stderr, with why, as a refused signal is; a table's completion stores the resumable state
 * even when no commit follows; nothing is said about resuming when there is nothing to resume.
 */
class StreamIncrementalOutcomeTest {
    private static PgServer server;

    @BeforeAll
    static void start() throws Exception {
        server = PgServer.builder().version(18).start();
        server.sql("postgres", "CREATE TABLE \"Keyed Rows\" (id int PRIMARY KEY, amount numeric(8,2), at timestamp(3), tags text[]);"
                + " INSERT INTO \"Keyed Rows\" SELECT g, g * 1.25, '2025-01-02 03:04:05.678'::timestamp(3) + g * interval '1 s',"
                + " ARRAY['t' || g, NULL] FROM generate_series(1, 300) g;"
                + " CREATE TABLE \"Loose\" (code varchar(8), note text);"
                + " INSERT INTO \"Loose\" VALUES ('a', 'x'), ('b', NULL);"
                + " CREATE PUBLICATION outcome_pub FOR TABLE \"Keyed Rows\", \"Loose\"");
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
    }

    /** The CLI's stderr and what the library logged (slf4j-simple writes to System.err) during the run. */
    private record Run(Cli.Result result, String log) {
        String stderr() {
            return result.err() + log;
        }
    }

    private static synchronized Run runLogged(String... args) {
        PrintStream before = System.err;
        ByteArrayOutputStream log = new ByteArrayOutputStream();
        System.setErr(new PrintStream(log, true, StandardCharsets.UTF_8));
        try {
            Cli.Result r = Cli.run(args);
            return new Run(r, log.toString(StandardCharsets.UTF_8));
        } finally {
            System.setErr(before);
            before.print(log.toString(StandardCharsets.UTF_8));
        }
    }

    private static int count(String text, String part) {
        return text.split(java.util.regex.Pattern.quote(part), -1).length - 1;
    }

    private static List<JsonNode> ofType(Cli.Result r, String type) {
        return r.lines().stream().filter(n -> n.get("type").asText().equals(type)).toList();
    }

    @Test
    void tablesThatCannotBeReadFailTheRunAndAreNamedOnceWithWhy() throws Exception {
        server.sql("postgres", "SELECT pg_create_logical_replication_slot('outcome_fail', 'pgoutput')");
        Run run = runLogged("stream", Cli.url(server), "-S", "outcome_fail", "-P", "outcome_pub", "--snapshot=incremental",
                "--snapshot-tables", "public.\"No Such Table\",public.\"Loose\",public.\"Keyed Rows\"", "--idle-exit", "2");
        Cli.Result r = run.result();
        assertNotEquals(0, r.rc(), "failed tables must fail the run: " + run.stderr());
        // The readable table was still read whole.
        assertEquals(300, ofType(r, "read").size(), r.err());
        String err = run.stderr();
        // One line per failed table, with the table and the reason, printed once.
        assertEquals(1, count(err, "table public.\"No Such Table\" does not exist"), err);
        assertEquals(1, count(err, "has no primary key and its replica identity is default"), err);
        assertEquals(1, count(err, "incremental snapshot of public.\"Loose\" failed"), err);
        String missing = err.lines().filter(l -> l.contains("\"No Such Table\" does not exist")).findFirst().orElseThrow();
        assertTrue(missing.contains("incremental snapshot of public.\"No Such Table\" failed"), missing);
        // The exit line names both tables.
        String last = r.err().strip().lines().reduce((a, b) -> b).orElse("");
        assertTrue(last.startsWith("pgrepl stream: ") && last.contains("public.\"No Such Table\"") && last.contains("public.\"Loose\""), last);
        // Per table, the failure shows on stdout too, as its snapshot_end.
        assertEquals(List.of("failed", "failed", "completed"),
                ofType(r, "snapshot_end").stream().map(n -> n.get("status").asText()).toList(), r.out());

        // A run whose tables all complete exits 0.
        Cli.Result ok = Cli.run("stream", Cli.url(server), "-S", "outcome_fail", "-P", "outcome_pub", "--snapshot=incremental",
                "--snapshot-tables", "public.\"Keyed Rows\"", "--idle-exit", "2");
        assertEquals(0, ok.rc(), ok.err());
        server.dropReplicationSlot("outcome_fail");
    }

    @Test
    void acceptSignalsWithNothingToResumeSaysNothingAboutResuming(@TempDir Path dir) throws Exception {
        server.sql("postgres", "SELECT pg_create_logical_replication_slot('outcome_sig', 'pgoutput')");
        Cli.Result r = Cli.run("stream", Cli.url(server), "-S", "outcome_sig", "-P", "outcome_pub", "--accept-signals", "-v",
                "--idle-exit", "1");
        assertEquals(0, r.rc(), r.err());
        assertTrue(r.err().contains("pgrepl: streaming from slot outcome_sig"), "-v lines are on: " + r.err());
        assertFalse(r.err().contains("resuming"), r.err());
        r = Cli.run("stream", Cli.url(server), "-S", "outcome_sig", "-P", "outcome_pub", "--accept-signals", "-v",
                "--snapshot-state", dir.resolve("not-yet.state").toString(), "--idle-exit", "1");
        assertEquals(0, r.rc(), r.err());
        assertFalse(r.err().contains("resuming"), r.err());
        server.dropReplicationSlot("outcome_sig");
    }

    @Test
    void aRefusedSignalIsNamedOnce() throws Exception {
        server.sql("postgres", "SELECT pg_create_logical_replication_slot('outcome_bad_sig', 'pgoutput')");
        server.sql("postgres", "SELECT pg_logical_emit_message(true, 'pgrepl', '{\"type\":\"execute-snapshot\",\"data\":42}')");
        Run run = runLogged("stream", Cli.url(server), "-S", "outcome_bad_sig", "-P", "outcome_pub", "--accept-signals", "--idle-exit", "1");
        assertEquals(0, run.result().rc(), run.stderr());
        assertEquals(1, ofType(run.result(), "message").size(), run.result().out());
        assertEquals(1, count(run.stderr(), "(logical message at "), "one line for the refused signal: " + run.stderr());
        server.dropReplicationSlot("outcome_bad_sig");
    }

    /**
     * A snapshot that completes on a quiet database (no commit after it to pair its state with) is
     * stored all the same: the next run with the same --snapshot-state reads nothing again.
     */
    @Test
    void aSnapshotCompletedOnAQuietDatabaseIsNotReadAgain(@TempDir Path dir) throws Exception {
        Path state = dir.resolve("quiet.state");
        String[] args = {"stream", Cli.url(server), "-S", "outcome_quiet", "-P", "outcome_pub", "--create-slot", "--if-not-exists",
                "--snapshot=incremental", "--snapshot-tables", "public.\"Keyed Rows\"", "--chunk-size", "64",
                "--snapshot-state", state.toString(), "--idle-exit", "2"};
        Cli.Result first = Cli.run(args);
        assertEquals(0, first.rc(), first.err());
        assertEquals(300, ofType(first, "read").size(), first.err());
        assertEquals("completed", ofType(first, "snapshot_end").get(0).get("status").asText(), first.out());
        assertEquals(List.of(), ofType(first, "commit"), "the database was quiet");
        assertTrue(Files.exists(state), "the state was stored when the table completed");

        Cli.Result second = Cli.run(args);
        assertEquals(0, second.rc(), second.err());
        assertEquals(List.of(), ofType(second, "read"), "read again: " + second.err());
        server.dropReplicationSlot("outcome_quiet");
    }
}
