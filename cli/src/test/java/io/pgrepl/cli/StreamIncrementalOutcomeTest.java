package io.pgrepl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.testkit.PgServer;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How a {@code pgrepl stream --snapshot=incremental} (or {@code --accept-signals}) run starts and
 * ends, on PostgreSQL 18: nothing is said about resuming when there is nothing to resume.
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
        server.sql("postgres", "SELECT pg_drop_replication_slot('outcome_sig')");
    }
}
