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
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code pgrepl stream --reconnect} when the walsender is terminated in the middle of a streamed
 * transaction (issue 11, defect 3): the json format prints the transaction once, whole; the
 * protocol format prints an {@code abandoned} line for the chunks already printed, then the
 * whole transaction again. One workload, two CLIs (one per format) on two slots.
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

    @Test
    void terminatedWalsenderMidTransactionLeavesNoPartialOutput() throws Exception {
        try (PgServer server = PgServer.builder().version(18).setting("logical_decoding_work_mem", "64kB").start()) {
            String url = Cli.url(server);
            server.sql("postgres", "CREATE TABLE sr (id int PRIMARY KEY, pad text); CREATE PUBLICATION sr_pub FOR TABLE sr");
            server.sql("postgres", "SELECT pg_create_logical_replication_slot('sr_json', 'pgoutput')");
            server.sql("postgres", "SELECT pg_create_logical_replication_slot('sr_proto', 'pgoutput')");
            Running json = start("stream", url, "-S", "sr_json", "-P", "sr_pub", "--streaming", "on", "--reconnect",
                    "--idle-exit", "3", "-v");
            Running proto = start("stream", url, "-S", "sr_proto", "-P", "sr_pub", "--streaming", "on", "--reconnect",
                    "--idle-exit", "3", "-v", "--format", "protocol");
            ConnectionConfig sql = ConnectionConfig.parse(url).toBuilder().replication(ReplicationMode.NONE).build();
            long xid;
            try (PgConnection session = get(PgConnection.connect(sql))) {
                get(session.simpleQuery("BEGIN"));
                xid = Long.parseLong(get(session.query("SELECT txid_current() % 4294967296")).singleRow().get(0));
                // ~450 kB: beyond logical_decoding_work_mem, so the server streams it before the commit
                get(session.simpleQuery("INSERT INTO sr SELECT g, repeat('x', 200) FROM generate_series(1, " + ROWS + ") g"));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (!proto.outText().contains("\"stream_stop\"") && System.nanoTime() < deadline) Thread.sleep(50);
                assertTrue(proto.outText().contains("\"stream_stop\""), "a streamed chunk was printed: " + proto.outText());
                Thread.sleep(500); // the json stream's walsender decodes the same WAL
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

            // json: the big transaction exactly once and whole, then the row after it
            List<JsonNode> lines = Cli.parseLines(json.outText());
            assertEquals(ROWS + 2 + 3, lines.size(), "begin, inserts, commit twice over, nothing else");
            assertEquals("begin", lines.get(0).get("type").asText());
            assertEquals(xid, lines.get(0).get("xid").asLong());
            assertTrue(lines.get(0).get("streamed").asBoolean());
            assertEquals(ROWS, lines.stream().filter(n -> n.get("type").asText().equals("insert")
                    && n.get("xid").asLong() == xid).count());
            assertEquals("commit", lines.get(ROWS + 1).get("type").asText());
            assertEquals("after", lines.get(ROWS + 3).get("new").get("pad").asText());

            // protocol: an abandoned line naming the xid; after it the transaction again, whole
            List<JsonNode> p = Cli.parseLines(proto.outText());
            int abandoned = -1;
            for (int i = 0; i < p.size(); i++) {
                if (p.get(i).get("type").asText().equals("abandoned")) {
                    assertEquals(-1, abandoned, "one abandoned line");
                    abandoned = i;
                }
            }
            assertTrue(abandoned > 0, proto.outText());
            assertEquals(xid, p.get(abandoned).get("xids").get(0).asLong());
            List<JsonNode> after = p.subList(abandoned + 1, p.size());
            assertEquals(ROWS + 1, after.stream().filter(n -> n.get("type").asText().equals("insert")).count());
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
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
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
