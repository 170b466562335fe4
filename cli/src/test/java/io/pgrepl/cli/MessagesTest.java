package io.pgrepl.cli;

import static io.pgrepl.cli.Cli.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * What a new user sees when an argument is wrong: a message that names the problem and what to do,
 * and the exit code (2 for arguments, 1 for failures). No server: nothing here gets that far.
 */
class MessagesTest {
    /** Nothing listens on port 1 of the loopback address (a privileged port no test server binds). */
    private static final String NOWHERE = "postgresql://127.0.0.1:1/postgres";

    @Test
    void slotCreateWithoutAKindNamesTheMissingOption() {
        Cli.Result r = run("slot", "create", NOWHERE, "s1");
        assertEquals(2, r.rc(), r.err());
        assertTrue(r.err().startsWith("pgrepl slot: missing --logical PLUGIN or --physical"), r.err());
        assertTrue(r.err().contains("Try 'pgrepl slot --help'"), r.err());
        Cli.Result both = run("slot", "create", NOWHERE, "s1", "--logical", "pgoutput", "--physical");
        assertEquals(2, both.rc(), both.err());
        assertTrue(both.err().contains("--logical and --physical exclude each other"), both.err());
    }

    @Test
    void aBugsNullCheckIsNamedAsAnInternalError() {
        String line = CliErrors.oneLine(new NullPointerException("plugin"));
        assertEquals("internal error (NullPointerException: plugin); please report it", line);
        assertEquals("internal error (IndexOutOfBoundsException); please report it",
                CliErrors.oneLine(new IndexOutOfBoundsException()));
        assertEquals("no such slot", CliErrors.oneLine(new IllegalStateException("no such slot")));
        assertFalse(CliErrors.oneLine(new IllegalArgumentException()).isBlank());
        // Messageless exceptions an await or a channel throws: words, not a class name
        assertEquals("timed out waiting for the server", CliErrors.oneLine(new java.util.concurrent.ExecutionException(
                new java.util.concurrent.TimeoutException())));
        assertEquals("the connection was closed", CliErrors.oneLine(new java.nio.channels.ClosedChannelException()));
    }

    @Test
    void unknownOptionsGetTheNearestKnownOne() {
        Cli.Result r = run("stream", NOWHERE, "-S", "s", "-P", "p", "--snapshop");
        assertEquals(2, r.rc(), r.err());
        assertTrue(r.err().startsWith("pgrepl stream: unknown option --snapshop (did you mean --snapshot?)\n"), r.err());
        r = run("stream", NOWHERE, "-S", "s", "--publications=p");
        assertEquals(2, r.rc(), r.err());
        assertTrue(r.err().startsWith("pgrepl stream: unknown option --publications (did you mean --publication?)\n"), r.err());
        r = run("slot", "create", NOWHERE, "s", "--logicl", "pgoutput");
        assertEquals(2, r.rc(), r.err());
        assertTrue(r.err().contains("unknown option --logicl (did you mean --logical?)"), r.err());
        // Nothing near: no guess.
        r = run("stream", NOWHERE, "--frobnicate");
        assertEquals(2, r.rc(), r.err());
        assertTrue(r.err().startsWith("pgrepl stream: unknown option --frobnicate\n"), r.err());
        r = run("strem", NOWHERE);
        assertEquals(2, r.rc(), r.err());
        assertTrue(r.err().startsWith("pgrepl: unknown command 'strem' (did you mean 'stream'?)"), r.err());
        r = run("slot", "crate", NOWHERE, "s");
        assertEquals(2, r.rc(), r.err());
        assertTrue(r.err().contains("unknown slot command crate (did you mean create?)"), r.err());
    }

    @Test
    void aMalformedUrlSaysWhatItLooksLikeAndWhatIsExpected() {
        Cli.Result r = run("identify", "localhost:5432");
        assertEquals(2, r.rc(), r.err());
        assertEquals("pgrepl identify: \"localhost:5432\" looks like host:port, not a connection string: expected a URI"
                + " (postgresql://user@host:5432/dbname) or keyword/value pairs (host=... port=5432 dbname=...),"
                + " e.g. postgresql://localhost:5432/dbname\n", r.err());
        r = run("identify", "http://alice:Sekr1t@db.example/app");
        assertEquals(2, r.rc(), r.err());
        assertTrue(r.err().startsWith("pgrepl identify: a http:// URL is not a PostgreSQL connection string: expected a URI"
                + " (postgresql://user@host:5432/dbname)"), r.err());
        assertFalse(r.err().contains("Sekr1t"), r.err());
        r = run("stream", "Sekr1t", "-S", "s", "-P", "p");
        assertEquals(2, r.rc(), r.err());
        assertTrue(r.err().startsWith("pgrepl stream: a single word is not a connection string"), r.err());
        assertFalse(r.err().contains("Sekr1t"), r.err());
        r = run("slot", "list", "db.example:5432/app");
        assertEquals(2, r.rc(), r.err());
        assertTrue(r.err().contains("e.g. postgresql://db.example:5432/app\n"), r.err());
    }

    @Test
    void connectionRefusedReadsAsPsqlSaysIt() throws Exception {
        int port = closedPort();
        Cli.Result r = run("identify", "postgresql://127.0.0.1:" + port + "/postgres");
        assertEquals(1, r.rc(), r.err());
        assertEquals("pgrepl identify: could not connect to server at \"127.0.0.1\", port " + port + ": Connection refused\n"
                + "Is the server running on that host and accepting TCP/IP connections?\n", r.err());
        int other = closedPort();
        r = run("slot", "list", "host=127.0.0.1,127.0.0.1 port=" + port + "," + other + " dbname=postgres");
        assertEquals(1, r.rc(), r.err());
        assertTrue(r.err().contains("\n  127.0.0.1:" + port + ": could not connect to server at \"127.0.0.1\", port " + port
                + ": Connection refused\n  127.0.0.1:" + other + ": could not connect to server at \"127.0.0.1\", port " + other
                + ": Connection refused\nIs the server running on that host and accepting TCP/IP connections?\n"), r.err());
        assertFalse(r.err().contains("finishConnect") || r.err().contains("error(-"), r.err());
        // On one line (a --reconnect retry note): the hint as a sentence of its own
        assertEquals("could not connect to server at \"127.0.0.1\", port 5: Connection refused. Is the server running on that host"
                + " and accepting TCP/IP connections?", CliErrors.oneLine(new io.pgrepl.client.PgClientException(
                io.pgrepl.client.PgClientException.Kind.CONNECTION, "could not connect to server at \"127.0.0.1\", port 5:"
                + " Connection refused\nIs the server running on that host and accepting TCP/IP connections?")));
    }

    /** A loopback port nothing listens on (bound, then released). */
    static int closedPort() throws java.io.IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
