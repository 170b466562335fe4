package io.pgrepl.cli;

import static io.pgrepl.cli.Cli.query;
import static io.pgrepl.cli.Cli.run;
import static io.pgrepl.cli.Cli.url;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pgrepl.testkit.PgServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code pgrepl stream} against a real PostgreSQL 18: stop conditions, acknowledgement, options, errors. */
class StreamCommandTest {
    private static PgServer server;

    @BeforeAll
    static void start() {
        server = PgServer.builder().version(18).start();
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
    }

    private static String url() {
        return Cli.url(server);
    }

    private static void assertConfirmedAtLeast(String slot, String lsn) throws Exception {
        String confirmed = query(server, "SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '" + slot + "'");
        assertTrue(Long.compareUnsigned(io.pgrepl.codec.Lsn.parse(confirmed), io.pgrepl.codec.Lsn.parse(lsn)) >= 0,
                confirmed + " >= " + lsn);
    }

    @Test
    void badArgumentsAreUsageErrors() {
        assertEquals(2, run("stream").rc());
        assertEquals(2, run("stream", url(), "--publication", "p").rc());
        assertEquals(2, run("stream", url(), "--slot", "s", "--publication", "p", "--streaming", "maybe").rc());
        assertEquals(2, run("stream", url(), "--slot", "s", "--publication", "p", "--temporary").rc());
        assertEquals(2, run("stream", url(), "--slot", "s", "--publication", "p", "--if-not-exists").rc());
        assertEquals(2, run("stream", url(), "--slot", "s", "--publication", "p", "--format", "xml").rc());
        Cli.Result empty = run("stream", url(), "--slot", "s", "--publication", "p,");
        assertEquals(2, empty.rc());
        assertTrue(empty.err().contains("empty publication name"), empty.err());
        Cli.Result r = run("stream", url(), "--slot", "s", "--publication", "p", "--end-lsn", "nope");
        assertEquals(2, r.rc());
        assertTrue(r.err().contains("--end-lsn"), r.err());
        assertThrows(UsageException.class, () -> StreamOptions.parse(new String[] {"u", "--slot", "s", "--publication",
                "p", "--create-slot", "--temporary", "--reconnect"}));
        assertThrows(UsageException.class, () -> StreamOptions.parse(new String[] {"u", "--slot", "s", "--publication",
                "p", "--read-coalescing", "101"}));
    }

    @Test
    void readCoalescingReachesTheStreamOptions() throws Exception {
        String[] base = {"u", "--slot", "s", "--publication", "p"};
        assertEquals(java.time.Duration.ofMillis(1), StreamOptions.parse(base).options().readCoalescing(), "default");
        String[] zero = java.util.Arrays.copyOf(base, base.length + 2);
        zero[base.length] = "--read-coalescing";
        zero[base.length + 1] = "0";
        assertEquals(java.time.Duration.ZERO, StreamOptions.parse(zero).options().readCoalescing());
    }

    @Test
    void optionFormsAndPgRecvlogicalShortNames() throws Exception {
        StreamOptions a = StreamOptions.parse(new String[] {"-d", "host=h", "-S", "s1", "-P", "p1,p2", "-P", "p3",
                "-E", "0/10", "-I", "0/5", "-s", "3", "-f", "out.jsonl", "-F", "2", "-v"});
        assertEquals("host=h", a.url);
        assertEquals("s1", a.slot);
        assertEquals(List.of("p1", "p2", "p3"), a.publications);
        assertEquals(0x10, a.endLsn);
        assertEquals(5, a.startLsn);
        assertEquals(3, a.statusInterval.toSeconds());
        assertEquals(Path.of("out.jsonl"), a.file);
        assertEquals(2, a.fsyncInterval.toSeconds());
        assertTrue(a.verbose);
        StreamOptions b = StreamOptions.parse(new String[] {"URL", "--slot=s2", "--publication=p", "--format=protocol",
                "--idle-exit=4", "-Ss3"});
        assertEquals("URL", b.url);
        assertEquals("s3", b.slot, "the last one wins");
        assertEquals(StreamOptions.Format.PROTOCOL, b.format);
        assertEquals(4, b.idleExit.toSeconds());
        assertEquals(StreamOptions.Format.JSON, StreamOptions.parse(new String[] {"u", "-S", "s", "-P", "p"}).format);
        assertEquals(10, StreamOptions.parse(new String[] {"u", "-S", "s", "-P", "p"}).statusInterval.toSeconds());
    }

    @Test
    void columnTypesAreLeftOutOnARelationLineOrOnEveryChangeAsAsked() throws Exception {
        server.sql("postgres", "CREATE TABLE ct (id int PRIMARY KEY, v text, n numeric); CREATE PUBLICATION ct_pub FOR TABLE ct");
        for (String slot : List.of("ct_none", "ct_rel", "ct_change")) {
            server.sql("postgres", "SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
        }
        server.sql("postgres", "INSERT INTO ct VALUES (1, 'a', 1.5), (2, 'b', 2)");
        server.sql("postgres", "UPDATE ct SET v = 'c' WHERE id = 2");
        server.sql("postgres", "ALTER TABLE ct ADD COLUMN d date");
        server.sql("postgres", "INSERT INTO ct VALUES (3, 'd', 3, '2024-02-29')");

        // The default: change lines name their table and key, values typed; no type names anywhere
        Cli.Result none = run("stream", url(), "-S", "ct_none", "-P", "ct_pub", "--idle-exit", "1");
        assertEquals(0, none.rc(), none.err());
        assertEquals(List.of("begin", "insert", "insert", "commit", "begin", "update", "commit", "begin", "insert", "commit"),
                none.types(), none.out());
        JsonNode first = none.lines().get(1);
        assertEquals("ct", first.get("table").asText());
        assertEquals("id", first.get("key_columns").get(0).asText());
        assertTrue(first.get("new").get("n").isNumber(), first.toString());
        assertFalse(none.out().contains("column_types"), none.out());

        // relation: once before the table's first change, again when its definition changed
        Cli.Result rel = run("stream", url(), "-S", "ct_rel", "-P", "ct_pub", "--idle-exit", "1", "--column-types", "relation");
        assertEquals(0, rel.rc(), rel.err());
        assertEquals(List.of("begin", "relation", "insert", "insert", "commit", "begin", "update", "commit",
                "begin", "relation", "insert", "commit"), rel.types(), rel.out());
        JsonNode r1 = rel.lines().get(1);
        assertEquals("public", r1.get("schema").asText());
        assertEquals("ct", r1.get("table").asText());
        assertEquals("numeric", r1.get("column_types").get("n").asText());
        assertFalse(r1.get("column_types").has("d"));
        assertEquals("date", rel.lines().get(9).get("column_types").get("d").asText(), "announced again after ALTER TABLE");
        assertFalse(rel.lines().get(2).has("column_types"));
        assertEquals(r1.get("relation_id"), rel.lines().get(9).get("relation_id"));

        // change: on every change line, no relation lines
        Cli.Result every = run("stream", url(), "-S", "ct_change", "-P", "ct_pub", "--idle-exit", "1", "--column-types", "change");
        assertEquals(0, every.rc(), every.err());
        assertEquals(none.types(), every.types());
        for (int i : new int[] {1, 2, 5}) assertEquals("text", every.lines().get(i).get("column_types").get("v").asText());

        Cli.Result bad = run("stream", url(), "-S", "ct_none", "-P", "ct_pub", "--column-types", "relation", "--format", "protocol");
        assertEquals(2, bad.rc(), bad.err());
        assertTrue(bad.err().contains("--column-types needs --format json"), bad.err());
    }

    @Test
    void idleExitAfterPrintingAndAcknowledgingEverything() throws Exception {
        server.sql("postgres", "CREATE TABLE sc (id int PRIMARY KEY, v text); CREATE PUBLICATION sc_pub FOR TABLE sc");
        server.sql("postgres", "SELECT pg_create_logical_replication_slot('sc', 'pgoutput')");
        server.sql("postgres", "INSERT INTO sc VALUES (1, 'a'), (2, 'b')");
        server.sql("postgres", "UPDATE sc SET v = 'c' WHERE id = 2");
        Cli.Result r = run("stream", url(), "--slot", "sc", "--publication", "sc_pub", "--idle-exit", "1", "-v");
        assertEquals(0, r.rc(), r.err());
        assertEquals(List.of("begin", "insert", "insert", "commit", "begin", "update", "commit"), r.types(), r.out());
        List<JsonNode> lines = r.lines();
        assertEquals(2, lines.get(2).get("new").get("id").asInt());
        assertTrue(lines.get(2).get("new").get("id").isInt(), "int4 as a JSON number");
        assertEquals("b", lines.get(2).get("new").get("v").asText());
        assertEquals("c", lines.get(5).get("new").get("v").asText());
        // the idle clock ran only once streaming had started, and -v said so
        assertTrue(r.err().contains("pgrepl: streaming from slot sc at LSN "), r.err());
        // everything printed was acknowledged: the slot is at or past (idle keepalives may confirm
        // WAL without changes) the last commit's end, and a second run prints nothing
        assertConfirmedAtLeast("sc", lines.get(6).get("end_lsn").asText());
        Cli.Result again = run("stream", url(), "--slot", "sc", "--publication", "sc_pub", "--idle-exit", "1");
        assertEquals(0, again.rc(), again.err());
        assertEquals("", again.out());
    }

    @Test
    void endLsnStopsAfterThatCommitWithATemporarySlot() throws Exception {
        server.sql("postgres", "CREATE TABLE se (id int PRIMARY KEY); CREATE PUBLICATION se_pub FOR TABLE se");
        Cli.Result none = run("stream", url(), "--slot", "se_tmp", "--publication", "se_pub", "--create-slot",
                "--temporary", "--idle-exit", "1");
        assertEquals(0, none.rc(), none.err());
        assertEquals("", none.out());
        server.sql("postgres", "SELECT pg_create_logical_replication_slot('se', 'pgoutput')");
        server.sql("postgres", "INSERT INTO se VALUES (4)");
        server.sql("postgres", "INSERT INTO se VALUES (5)");
        Cli.Result peek = run("stream", url(), "--slot", "se", "--publication", "se_pub", "--end-lsn", "0/1");
        assertEquals(0, peek.rc(), peek.err());
        assertEquals(List.of("begin", "insert", "commit"), peek.types(), "stops after the first commit past --end-lsn");
        assertEquals(4, peek.lines().get(1).get("new").get("id").asInt());
        Cli.Result rest = run("stream", url(), "--slot", "se", "--publication", "se_pub", "--idle-exit", "1");
        assertEquals(List.of("begin", "insert", "commit"), rest.types(), rest.out());
        assertEquals(5, rest.lines().get(1).get("new").get("id").asInt(), "the commit that ended the run was acknowledged");
        // the temporary slot went away with its connection
        Cli.Result gone = run("stream", url(), "--slot", "se_tmp", "--publication", "se_pub", "--idle-exit", "1");
        assertEquals(1, gone.rc());
        assertTrue(gone.err().contains("replication slot \"se_tmp\" does not exist"), gone.err());
    }

    @Test
    void upFrontChecksFailBeforeStreaming() throws Exception {
        server.sql("postgres", "CREATE TABLE su (id int PRIMARY KEY); CREATE PUBLICATION su_pub FOR TABLE su");
        Cli.Result noPub = run("stream", url(), "--slot", "su", "--publication", "su_pub,nope", "--create-slot",
                "--idle-exit", "1");
        assertEquals(1, noPub.rc());
        assertTrue(noPub.err().contains("publication \"nope\" does not exist"), noPub.err());
        assertEquals(null, query(server, "SELECT slot_name FROM pg_replication_slots WHERE slot_name = 'su'"),
                "nothing created before the checks passed");
        Cli.Result noSlot = run("stream", url(), "--slot", "su", "--publication", "su_pub", "--idle-exit", "1");
        assertEquals(1, noSlot.rc());
        assertTrue(noSlot.err().contains("replication slot \"su\" does not exist"), noSlot.err());
        // --create-slot --if-not-exists can be rerun; without --if-not-exists a second create fails
        for (int i = 0; i < 2; i++) {
            Cli.Result ok = run("stream", url(), "-S", "su", "-P", "su_pub", "--create-slot", "--if-not-exists", "--idle-exit", "1");
            assertEquals(0, ok.rc(), ok.err());
        }
        Cli.Result twice = run("stream", url(), "-S", "su", "-P", "su_pub", "--create-slot", "--idle-exit", "1");
        assertEquals(1, twice.rc());
        assertTrue(twice.err().contains("already exists"), twice.err());
        assertEquals("", twice.out());
    }

    @Test
    void fileOutputIsAcknowledgedAfterFsync() throws Exception {
        server.sql("postgres", "CREATE TABLE sf (id int PRIMARY KEY); CREATE PUBLICATION sf_pub FOR TABLE sf");
        server.sql("postgres", "SELECT pg_create_logical_replication_slot('sf', 'pgoutput')");
        server.sql("postgres", "INSERT INTO sf VALUES (1)");
        server.sql("postgres", "INSERT INTO sf VALUES (2)");
        Path file = Files.createTempFile("pgrepl-stream", ".jsonl");
        try {
            Cli.Result r = run("stream", url(), "-S", "sf", "-P", "sf_pub", "-f", file.toString(), "-F", "1", "--idle-exit", "2");
            assertEquals(0, r.rc(), r.err());
            assertEquals("", r.out(), "nothing on stdout with --file");
            List<JsonNode> lines = Cli.parseLines(Files.readString(file));
            assertEquals(6, lines.size(), lines.toString());
            assertConfirmedAtLeast("sf", lines.get(5).get("end_lsn").asText());
            Cli.Result again = run("stream", url(), "-S", "sf", "-P", "sf_pub", "-f", file.toString(), "--idle-exit", "1");
            assertEquals(0, again.rc(), again.err());
            assertEquals(6, Files.readAllLines(file).size(), "appended nothing: all was confirmed");
        } finally {
            Files.deleteIfExists(file);
        }
    }

    @Test
    void serverErrorIsOneLineWithNoSecret() {
        Cli.Result r = run("stream", url(), "--slot", "no_such_slot", "--publication", "p", "--create-slot", "--proto-version", "9");
        assertEquals(2, r.rc());
        Cli.Result e = run("stream", server.url(server.superuser(), "nodb"), "--slot", "x", "--publication", "p");
        assertEquals(1, e.rc());
        List<String> lines = e.err().lines().filter(l -> l.startsWith("pgrepl")).toList();
        assertEquals(1, lines.size(), e.err());
        assertTrue(lines.get(0).contains("3D000"), lines.get(0));
        assertFalse(e.err().contains(server.superuser().password()), "no secret");
        assertEquals("", e.out());
    }
}
