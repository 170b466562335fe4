package io.pgrepl.cli;

import static io.pgrepl.cli.Cli.query;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pgrepl.testkit.PgServer;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * What a first run of {@code pgrepl stream} and {@code slot create} tells a person, on PostgreSQL 18:
 * a table with no key points to the option that reads it (and {@code stream} has it), the
 * replica-identity warning names PostgreSQL's remedies, signals are counted apart from changes, and
 * {@code slot create} prints no snapshot name that is dead by the time it is read.
 */
class NewcomerOutputTest {
    private static PgServer server;

    @BeforeAll
    static void start() {
        server = PgServer.builder().version(18).start();
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
    }

    private static JsonNode end(List<JsonNode> lines, String table) {
        return lines.stream().filter(n -> n.get("type").asText().equals("snapshot_end") && n.get("table").asText().equals(table))
                .findFirst().orElseThrow(() -> new AssertionError("no snapshot_end of " + table + ": " + lines));
    }

    @Test
    void aTableWithoutAKeyPointsToSurrogateKeyWhichStreamTakes() throws Exception {
        server.sql("postgres", "CREATE TABLE \"No Key\" (code varchar(8) NOT NULL, amount numeric(8,2), at timestamp(3));"
                + " INSERT INTO \"No Key\" VALUES ('b', 1.50, '2025-01-02 03:04:05.678'), ('a', NULL, NULL), ('c', 3.00, NULL);"
                // Unique, but neither a primary key nor the replica identity: the engine does not pick it, a surrogate key may name it.
                + " CREATE UNIQUE INDEX ON \"No Key\" (code);"
                + " CREATE PUBLICATION nk_pub FOR TABLE \"No Key\" WITH (publish = 'insert')");
        server.sql("postgres", "SELECT pg_create_logical_replication_slot('nk', 'pgoutput')");
        Cli.Result r = Cli.run("stream", Cli.url(server), "-S", "nk", "-P", "nk_pub", "--snapshot=incremental",
                "--snapshot-tables", "public.\"No Key\"", "--idle-exit", "2");
        assertEquals("failed", end(r.lines(), "public.\"No Key\"").get("status").asText(), r.out());
        assertEquals(1, r.rc(), "a table that failed fails the run: " + r.err());
        // The name as PostgreSQL reads it, quoted for the shell: the hint can be pasted as it is.
        assertTrue(r.err().contains("pgrepl: hint: read it by a unique, not-null column: --snapshot=incremental"
                + " --snapshot-tables 'public.\"No Key\"' --surrogate-key COLUMN"), r.err());

        r = Cli.run("stream", Cli.url(server), "-S", "nk", "-P", "nk_pub", "--snapshot=incremental",
                "--snapshot-tables", "public.\"No Key\"", "--surrogate-key", "code", "--idle-exit", "2");
        JsonNode done = end(r.lines(), "public.\"No Key\"");
        assertEquals("completed", done.get("status").asText(), r.out() + r.err());
        assertEquals(3, done.get("rows").asLong());
        List<String> codes = r.lines().stream().filter(n -> n.get("type").asText().equals("read"))
                .map(n -> n.get("new").get("code").asText()).toList();
        assertEquals(List.of("a", "b", "c"), codes, "read in the surrogate key's order");

        Cli.Result usage = Cli.run("stream", Cli.url(server), "-S", "nk", "-P", "nk_pub", "--snapshot=incremental",
                "--surrogate-key", "code");
        assertEquals(2, usage.rc(), usage.err());
        assertTrue(usage.err().contains("--surrogate-key needs --snapshot=incremental and --snapshot-tables"), usage.err());
    }

    @Test
    void theReplicaIdentityWarningNamesPostgresqlsRemedies() throws Exception {
        server.sql("postgres", "CREATE TABLE ri (v text); INSERT INTO ri VALUES ('x'); CREATE PUBLICATION ri_pub FOR TABLE ri");
        Cli.Result r = Cli.run("stream", Cli.url(server), "-S", "ri", "-P", "ri_pub", "--create-slot", "--snapshot", "--idle-exit", "2");
        assertEquals(0, r.rc(), r.err());
        assertTrue(r.err().contains("pgrepl: warning: table public.ri has no replica identity, so the server refuses its updates"
                + " and deletes while a publication publishes them; give it one: a primary key, or ALTER TABLE \"public\".\"ri\" REPLICA"
                + " IDENTITY USING INDEX name"), r.err());
        assertTrue(r.err().contains("ALTER TABLE \"public\".\"ri\" REPLICA IDENTITY FULL (every update and delete writes the whole old row"
                + " to the WAL)"), r.err());
        // What the warning says, from the server itself.
        Exception refused = org.junit.jupiter.api.Assertions.assertThrows(Exception.class, () -> query(server, "UPDATE ri SET v = 'y'"));
        assertTrue(String.valueOf(refused.getMessage()).contains("does not have a replica identity"), refused.getMessage());
        server.dropReplicationSlot("ri");
    }

    @Test
    void signalsAreCountedApartFromChanges() throws Exception {
        server.sql("postgres", "CREATE TABLE sc (id int PRIMARY KEY); CREATE PUBLICATION sc_pub FOR TABLE sc");
        server.sql("postgres", "SELECT pg_create_logical_replication_slot('sc', 'pgoutput')");
        server.sql("postgres", "INSERT INTO sc VALUES (1), (2), (3)");
        server.sql("postgres", "SELECT pg_logical_emit_message(true, 'pgrepl', '{\"type\":\"pause-snapshot\"}')");
        server.sql("postgres", "SELECT pg_logical_emit_message(true, 'app', 'not a signal')");
        Cli.Result r = Cli.run("stream", Cli.url(server), "-S", "sc", "-P", "sc_pub", "--messages", "-v", "--idle-exit", "2");
        assertEquals(0, r.rc(), r.err());
        assertEquals(2, r.lines().stream().filter(n -> n.get("type").asText().equals("message")).count(), r.out());
        assertTrue(r.err().contains("pgrepl: stopped after 4 changes and 1 signal; slot sc confirmed up to "), r.err());
    }

    @Test
    void slotCreatePrintsNoSnapshotNameThatIsDeadOnArrival() throws Exception {
        Cli.Result r = Cli.run("slot", "create", Cli.url(server), "sn", "--logical", "pgoutput", "--snapshot", "export");
        assertEquals(0, r.rc(), r.err());
        JsonNode o = Cli.parse(r.out());
        assertEquals("sn", o.get("slot_name").asText());
        assertFalse(o.has("snapshot_name"), r.out());
        assertTrue(r.err().contains("exported snapshot ended with this command's connection"), r.err());
        r = Cli.run("slot", "create", Cli.url(server), "sn2", "--logical", "pgoutput");
        assertFalse(Cli.parse(r.out()).has("snapshot_name"), r.out());
        assertEquals("", r.err());
        server.dropReplicationSlot("sn");
        server.dropReplicationSlot("sn2");
    }
}
