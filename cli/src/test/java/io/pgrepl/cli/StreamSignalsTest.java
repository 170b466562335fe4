package io.pgrepl.cli;

import static io.pgrepl.cli.Cli.query;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.Waits;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code pgrepl stream --accept-signals}: a running stream reads a table when {@code pgrepl snapshot request}
 * signals it, through a logical message on 18 and a signal table row on 10; the table rebuilt from the
 * output (changes made meanwhile included) is the server's. Without the flag a signal is printed, not acted
 * on, and stderr says so once.
 */
class StreamSignalsTest {
    private static PgServer pg18;
    private static PgServer pg10;

    @BeforeAll
    static void start() throws Exception {
        pg18 = PgServer.builder().version(18).start();
        pg10 = PgServer.builder().version(10).start();
        for (PgServer s : List.of(pg18, pg10)) {
            s.sql("postgres", "CREATE TABLE sig_t (id int PRIMARY KEY, v text);"
                    + " INSERT INTO sig_t SELECT g, 'row ' || g FROM generate_series(1, 2000) g;"
                    + " CREATE TABLE sig_signals (id varchar(42) PRIMARY KEY, type varchar(32) NOT NULL, data varchar(2048));"
                    + " CREATE PUBLICATION sig_pub FOR TABLE sig_t, sig_signals");
        }
    }

    @AfterAll
    static void stop() {
        if (pg18 != null) pg18.close();
        if (pg10 != null) pg10.close();
    }

    @Test
    void optionsParse() throws Exception {
        StreamOptions s = StreamOptions.parse(new String[] {"u", "-S", "s", "-P", "p", "--accept-signals", "--signal-table", "public.sig",
                "--chunk-size", "9", "--snapshot-state", "f"});
        assertTrue(s.acceptSignals && s.incrementalReads() && !s.incremental);
        assertEquals("public.sig", s.signalTable);
        assertEquals(9, s.chunkSize);
        for (String[] bad : List.of(new String[] {"u", "-S", "s", "-P", "p", "--signal-table", "public.sig"},
                new String[] {"u", "-S", "s", "-P", "p", "--accept-signals", "--format", "protocol"},
                new String[] {"u", "-S", "s", "-P", "p", "--accept-signals", "--snapshot-tables", "t"},
                new String[] {"u", "-S", "s", "-P", "p", "--accept-signals", "--signal-table", "a.b.c.d"})) {
            assertThrows(UsageException.class, () -> StreamOptions.parse(bad), String.join(" ", bad));
        }
    }

    @Test
    void messageSignalStartsReadsOn18() throws Exception {
        pg18.sql("postgres", "SELECT pg_create_logical_replication_slot('sig_slot', 'pgoutput')");
        Running stream = Running.start("stream", Cli.url(pg18), "-S", "sig_slot", "-P", "sig_pub", "--accept-signals",
                "--chunk-size", "150", "--idle-exit", "3", "-s", "1");
        Cli.Result sent = Cli.run("snapshot", "request", Cli.url(pg18), "--slot", "sig_slot", "public.sig_t");
        assertEquals(0, sent.rc(), sent.err());
        changeWhileReading(pg18, stream);
        assertEquals(0, stream.rc.get(120, TimeUnit.SECONDS), stream.err());
        List<JsonNode> lines = Cli.parseLines(stream.out());
        assertTrue(lines.stream().anyMatch(n -> n.get("type").asText().equals("message")
                && n.get("prefix").asText().equals("pgrepl")), "the signal shows as a message line");
        assertRebuilt(pg18, lines);
    }

    @Test
    void signalTableRowStartsReadsOn10() throws Exception {
        pg10.sql("postgres", "SELECT pg_create_logical_replication_slot('sig_slot', 'pgoutput')");
        Cli.Result noTable = Cli.run("stream", Cli.url(pg10), "-S", "sig_slot", "-P", "sig_pub", "--accept-signals", "--idle-exit", "1");
        assertEquals(1, noTable.rc());
        assertTrue(noTable.err().contains("--signal-table"), noTable.err());

        Running stream = Running.start("stream", Cli.url(pg10), "-S", "sig_slot", "-P", "sig_pub", "--accept-signals",
                "--signal-table", "public.sig_signals", "--chunk-size", "150", "--idle-exit", "3", "-s", "1");
        Cli.Result sent = Cli.run("snapshot", "request", Cli.url(pg10), "--signal-table", "public.sig_signals", "public.sig_t");
        assertEquals(0, sent.rc(), sent.err());
        changeWhileReading(pg10, stream);
        assertEquals(0, stream.rc.get(120, TimeUnit.SECONDS), stream.err());
        assertRebuilt(pg10, Cli.parseLines(stream.out()));
    }

    @Test
    void withoutTheFlagASignalIsIgnoredAndSaidOnce() throws Exception {
        pg18.sql("postgres", "SELECT pg_create_logical_replication_slot('sig_off', 'pgoutput')");
        Running stream = Running.start("stream", Cli.url(pg18), "-S", "sig_off", "-P", "sig_pub", "--snapshot=incremental",
                "--snapshot-tables", "public.sig_signals", "--messages", "--idle-exit", "2", "-s", "1");
        for (int i = 0; i < 2; i++) {
            Cli.Result sent = Cli.run("snapshot", "request", Cli.url(pg18), "--slot", "sig_off", "public.sig_t");
            assertEquals(0, sent.rc(), sent.err());
        }
        // Both signals reached the stream (printed as message lines) before it went idle and ended.
        stream.await(out -> out.split("\"prefix\":\"pgrepl\"", -1).length == 3, "both signals printed");
        assertEquals(0, stream.rc.get(60, TimeUnit.SECONDS), stream.err());
        List<JsonNode> lines = Cli.parseLines(stream.out());
        assertFalse(lines.stream().anyMatch(n -> n.path("table").asText().equals("sig_t") && n.get("type").asText().equals("read")),
                "an ignored signal read nothing");
        String err = stream.err();
        assertEquals(1, err.split("--accept-signals", -1).length - 1, "said once: " + err);
        assertTrue(err.contains("snapshot signal") && err.contains("ignored"), err);
    }

    /** Updates, deletes and inserts while the signalled snapshot runs, until its snapshot_end line. */
    private static void changeWhileReading(PgServer s, Running stream) throws Exception {
        int i = 0;
        long deadline = System.nanoTime() + Waits.CEILING.toNanos();
        while (!stream.out().contains("\"type\":\"snapshot_end\"")) {
            assertFalse(stream.rc.isDone(), stream::err);
            assertTrue(System.nanoTime() < deadline, "no snapshot_end: " + stream.err());
            int id = 1 + (i * 37) % 2000;
            s.sql("postgres", switch (i % 3) {
                case 0 -> "UPDATE sig_t SET v = 'upd " + i + "' WHERE id = " + id;
                case 1 -> "DELETE FROM sig_t WHERE id = " + id;
                default -> "INSERT INTO sig_t VALUES (" + (10_000 + i) + ", 'new " + i + "')";
            });
            i++;
        }
        assertTrue(i > 0, "no change overlapped the snapshot");
    }

    private static void assertRebuilt(PgServer s, List<JsonNode> lines) throws Exception {
        Map<Integer, String> rebuilt = new TreeMap<>();
        long reads = 0;
        String end = null;
        for (JsonNode n : lines) {
            // change and read lines name the table as pgoutput does; snapshot_start/_end as schema.table
            if (!n.path("table").asText().equals("sig_t") && !n.path("table").asText().equals("public.sig_t")) continue;
            switch (n.get("type").asText()) {
                case "read" -> {
                    reads++;
                    rebuilt.put(n.get("new").get("id").asInt(), n.get("new").get("v").asText());
                }
                case "insert", "update" -> rebuilt.put(n.get("new").get("id").asInt(), n.get("new").get("v").asText());
                case "delete" -> rebuilt.remove(n.get("key").get("id").asInt());
                case "snapshot_end" -> end = n.get("status").asText();
                default -> { }
            }
        }
        assertEquals("completed", end);
        assertTrue(reads >= 1900, "the signalled snapshot read the table: " + reads);
        Map<Integer, String> now = new TreeMap<>();
        for (JsonNode r : Cli.parse(query(s, "SELECT json_agg(t) FROM sig_t t"))) now.put(r.get("id").asInt(), r.get("v").asText());
        assertEquals(now, rebuilt, "the output rebuilds the table");
    }

    /** The CLI's main, in-process, on another thread. */
    private record Running(CompletableFuture<Integer> rc, ByteArrayOutputStream o, ByteArrayOutputStream e) {
        static Running start(String... args) {
            ByteArrayOutputStream o = new ByteArrayOutputStream();
            ByteArrayOutputStream e = new ByteArrayOutputStream();
            CompletableFuture<Integer> rc = CompletableFuture.supplyAsync(() -> Main.run(args,
                    new PrintStream(o, true, StandardCharsets.UTF_8), new PrintStream(e, true, StandardCharsets.UTF_8)));
            return new Running(rc, o, e);
        }

        String out() {
            return o.toString(StandardCharsets.UTF_8);
        }

        String err() {
            return e.toString(StandardCharsets.UTF_8);
        }

        void await(Predicate<String> done, String what) throws InterruptedException {
            long deadline = System.nanoTime() + Waits.CEILING.toNanos();
            while (!done.test(out())) {
                assertTrue(System.nanoTime() < deadline, what + ": " + err());
                Thread.sleep(20);
            }
        }
    }
}
