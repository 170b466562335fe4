package io.pgrepl.cli;

import static io.pgrepl.cli.Cli.query;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.Waits;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * {@code pgrepl stream --reconnect} when the walsender is terminated in the middle of a streamed
 * transaction with an ordinary transaction committed between its chunks:
 * the json format prints the transaction once, whole; the protocol format prints an
 * {@code abandoned} line for the chunks already printed, then the whole transaction again. One
 * workload, two CLIs (one per format) on two slots; every wait is on a condition.
 */
class ReconnectTest {
    private static final int ROWS = 2000;

    private record Running(Thread thread, ByteArrayOutputStream out, ByteArrayOutputStream err, int[] rc) {
        String outText() {
            return out.toString(StandardCharsets.UTF_8);
        }
    }

    private static Running start(String... args) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        int[] rc = {-1};
        Thread t = new Thread(() -> rc[0] = Main.run(args, new PrintStream(o, true, StandardCharsets.UTF_8),
                new PrintStream(e, true, StandardCharsets.UTF_8)));
        t.start();
        return new Running(t, o, e, rc);
    }

    private static <T> T get(java.util.concurrent.CompletionStage<T> s) throws Exception {
        return s.toCompletableFuture().get(60, TimeUnit.SECONDS);
    }

    /** Complete lines of {@code r}'s output so far, parsed. */
    private static List<JsonNode> linesSoFar(Running r) {
        String text = r.outText();
        return Cli.parseLines(text.substring(0, text.lastIndexOf('\n') + 1));
    }

    private static boolean printed(Running r, Predicate<JsonNode> line) {
        return linesSoFar(r).stream().anyMatch(line);
    }

    /** Waits (polling the output) until {@code condition} holds; fails with {@code what} after {@link Waits#CEILING}. */
    private static void await(String what, Running r, java.util.function.BooleanSupplier condition) throws Exception {
        long deadline = System.nanoTime() + Waits.CEILING.toNanos();
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, what + "; output so far: " + r.outText());
            assertTrue(r.thread.isAlive(), what + "; the CLI ended: " + r.err.toString(StandardCharsets.UTF_8));
            Thread.sleep(20);
        }
    }

    private static boolean isInsertOf(JsonNode n, String id) {
        return n.get("type").asText().equals("insert") && n.get("new").get("id").asText().equals(id);
    }

    /**
     * A streamed transaction A is open (chunks already sent) when an ordinary transaction B commits
     * between its chunks; then both walsenders are terminated and A commits. json prints A once,
     * whole; protocol prints B once, an abandoned line naming A (B's commit must not end A),
     * then A again from its start.
     */
    @Test
    void terminatedWalsenderMidTransactionLeavesNoPartialOutput() throws Exception {
        try (PgServer server = PgServer.builder().version(18).setting("logical_decoding_work_mem", "64kB").start()) {
            String url = Cli.url(server);
            server.sql("postgres", "CREATE TABLE sr (id int PRIMARY KEY, pad text); CREATE PUBLICATION sr_pub FOR TABLE sr");
            server.sql("postgres", "SELECT pg_create_logical_replication_slot('sr_json', 'pgoutput')");
            server.sql("postgres", "SELECT pg_create_logical_replication_slot('sr_proto', 'pgoutput')");
            // The idle time outlasts the steps between B and the terminate on a loaded machine (3 s did not:
            // both runs ended idle before their walsenders could be terminated).
            Running json = start("stream", url, "-S", "sr_json", "-P", "sr_pub", "--streaming", "on", "--reconnect",
                    "--idle-exit", "10", "-v");
            Running proto = start("stream", url, "-S", "sr_proto", "-P", "sr_pub", "--streaming", "on", "--reconnect",
                    "--idle-exit", "10", "-v", "--format", "protocol");
            ConnectionConfig sql = ConnectionConfig.parse(url).toBuilder().replication(ReplicationMode.NONE).build();
            long xid;
            try (PgConnection session = get(PgConnection.connect(sql))) {
                get(session.simpleQuery("BEGIN"));
                xid = Long.parseLong(get(session.query("SELECT txid_current() % 4294967296")).singleRow().get(0));
                // ~450 kB: beyond logical_decoding_work_mem, so the server streams it before the commit
                get(session.simpleQuery("INSERT INTO sr SELECT g, repeat('x', 200) FROM generate_series(1, " + ROWS + ") g"));
                await("a streamed chunk of A was printed", proto, () -> printed(proto, n -> n.get("type").asText().equals("stream_stop")));
                // B: an ordinary transaction committed while A is open, after A's streamed chunks in the WAL
                server.sql("postgres", "INSERT INTO sr VALUES (-1, 'interleaved')");
                await("protocol printed B", proto, () -> printed(proto, n -> isInsertOf(n, "-1")));
                // json prints B at its commit; its walsender decoded (and streamed) A's chunks before B.
                await("json printed B", json, () -> printed(json, n -> n.get("type").asText().equals("insert")
                        && n.get("new").get("id").asInt() == -1));
                String killed = query(server, "SELECT count(*) FROM (SELECT pg_terminate_backend(active_pid) AS t"
                        + " FROM pg_replication_slots WHERE slot_name IN ('sr_json', 'sr_proto')) x WHERE t");
                assertEquals("2", killed, "both walsenders were terminated");
                get(session.simpleQuery("COMMIT"));
            }
            server.sql("postgres", "INSERT INTO sr VALUES (0, 'after')");
            json.thread.join(120_000);
            proto.thread.join(120_000);
            assertFalse(json.thread.isAlive() || proto.thread.isAlive());
            String jsonErr = json.err.toString(StandardCharsets.UTF_8);
            String protoErr = proto.err.toString(StandardCharsets.UTF_8);
            assertEquals(0, json.rc[0], jsonErr);
            assertEquals(0, proto.rc[0], protoErr);
            assertTrue(jsonErr.contains("pgrepl: reconnected at "), jsonErr);
            assertTrue(protoErr.contains("pgrepl: reconnected at "), protoErr);

            // json: B, then the big transaction exactly once and whole, then the row after it
            List<JsonNode> lines = Cli.parseLines(json.outText());
            assertEquals(3 + ROWS + 2 + 3, lines.size(), "B, A, after: nothing twice");
            assertEquals(-1, lines.get(1).get("new").get("id").asInt());
            assertEquals("begin", lines.get(3).get("type").asText());
            assertEquals(xid, lines.get(3).get("xid").asLong());
            assertTrue(lines.get(3).get("streamed").asBoolean());
            assertEquals(ROWS, lines.stream().filter(n -> n.get("type").asText().equals("insert")
                    && n.get("xid").asLong() == xid).count());
            assertEquals("commit", lines.get(3 + ROWS + 1).get("type").asText());
            assertEquals("after", lines.get(3 + ROWS + 3).get("new").get("pad").asText());

            // protocol: B once; an abandoned line naming A (not B); after it A again, whole
            List<JsonNode> p = Cli.parseLines(proto.outText());
            assertEquals(1, p.stream().filter(n -> isInsertOf(n, "-1")).count(), "B printed once");
            int abandoned = -1;
            for (int i = 0; i < p.size(); i++) {
                if (p.get(i).get("type").asText().equals("abandoned")) {
                    assertEquals(-1, abandoned, "one abandoned line");
                    abandoned = i;
                }
            }
            assertTrue(abandoned > 0, proto.outText());
            JsonNode xids = p.get(abandoned).get("xids");
            assertEquals(1, xids.size(), "only A was open: " + xids);
            assertEquals(xid, xids.get(0).asLong());
            List<JsonNode> after = p.subList(abandoned + 1, p.size());
            assertEquals(ROWS, after.stream().filter(n -> n.get("type").asText().equals("insert")
                    && n.get("new").get("id").asInt() > 0).count(), "A whole again");
            assertEquals(1, after.stream().filter(n -> isInsertOf(n, "0")).count());
            assertEquals(1, after.stream().filter(n -> n.get("type").asText().equals("stream_commit")
                    && n.get("xid").asLong() == xid).count());
            assertTrue(after.stream().anyMatch(n -> n.get("type").asText().equals("stream_start")
                    && n.get("xid").asLong() == xid && n.get("first_segment").asBoolean()), "sent again from its start");
        }
    }

    @Test
    void reconnectRetriesTheFirstConnectionUntilTheServerIsUp() throws Exception {
        try (PgServer server = PgServer.builder().version(18).start()) {
            String url = Cli.url(server);
            server.sql("postgres", "CREATE TABLE sd (id int PRIMARY KEY); CREATE PUBLICATION sd_pub FOR TABLE sd");
            server.sql("postgres", "SELECT pg_create_logical_replication_slot('sd', 'pgoutput')");
            server.sql("postgres", "INSERT INTO sd VALUES (7)");
            server.stop(io.pgrepl.testkit.StopMode.FAST);
            Running r = start("stream", url, "-S", "sd", "-P", "sd_pub", "--reconnect", "--connect-deadline", "120",
                    "--idle-exit", "2", "-v");
            long deadline = System.nanoTime() + Waits.CEILING.toNanos();
            while (!r.err.toString(StandardCharsets.UTF_8).contains("cannot connect") && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertTrue(r.thread.isAlive(), "still trying: " + r.err.toString(StandardCharsets.UTF_8));
            server.start();
            r.thread.join(120_000);
            String err = r.err.toString(StandardCharsets.UTF_8);
            assertEquals(0, r.rc[0], err);
            assertTrue(err.contains("pgrepl: cannot connect ("), err);
            List<JsonNode> lines = Cli.parseLines(r.outText());
            assertEquals(List.of("begin", "insert", "commit"), lines.stream().map(n -> n.get("type").asText()).toList());
            assertEquals(7, lines.get(1).get("new").get("id").intValue());
        }
    }
}
