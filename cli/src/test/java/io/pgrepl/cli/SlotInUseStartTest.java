package io.pgrepl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.LogicalStreamHandler;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.client.stream.ReconnectPolicy;
import io.pgrepl.testkit.Waits;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code pgrepl stream} started while another connection still holds the slot, as the walsender of
 * a consumer that just went away does until it notices: the start waits for the slot (55006 is asked
 * again, as the reconnecting stream does) instead of failing at once, on PostgreSQL 18 and 10.
 */
class SlotInUseStartTest {
    private static final Map<Integer, PgServer> SERVERS = new TreeMap<>();

    @BeforeAll
    static void start() throws Exception {
        for (int major : new int[] {18, 10}) {
            PgServer s = PgServer.builder().version(major).start();
            SERVERS.put(major, s);
            s.sql("postgres", "CREATE TABLE \"Held Rows\" (id int PRIMARY KEY, amount numeric(6,2), at timestamp(3));"
                    + " CREATE PUBLICATION held_pub FOR TABLE \"Held Rows\"");
        }
    }

    @AfterAll
    static void stop() {
        SERVERS.values().forEach(PgServer::close);
    }

    @ParameterizedTest(name = "PG {0}")
    @ValueSource(ints = {18, 10})
    void aStartWaitsWhileAnotherConnectionStillHoldsTheSlot(int major) throws Exception {
        PgServer server = SERVERS.get(major);
        server.sql("postgres", "SELECT pg_create_logical_replication_slot('held', 'pgoutput')");
        server.sql("postgres", "INSERT INTO \"Held Rows\" VALUES (1, 2.50, '2025-01-02 03:04:05.678'), (2, NULL, NULL)");
        ConnectionConfig repl = ConnectionConfig.parse(Cli.url(server)).toBuilder().replication(ReplicationMode.DATABASE).build();
        PgConnection holderConn = PgConnection.connect(repl).toCompletableFuture().get(60, TimeUnit.SECONDS);
        try {
            LogicalReplicationStream holder = holderConn.startLogical(LogicalReplicationOptions.builder("held").publications("held_pub")
                    .build(), new LogicalStreamHandler() {});
            holder.started().toCompletableFuture().get(60, TimeUnit.SECONDS);
            assertEquals("t", Cli.query(server, "SELECT active FROM pg_replication_slots WHERE slot_name = 'held'"));
            // The holder goes away a little later, without a goodbye, as a killed consumer does.
            CompletableFuture.delayedExecutor(3, TimeUnit.SECONDS).execute(holderConn::close);

            Cli.Result r = Cli.run("stream", Cli.url(server), "-S", "held", "-P", "held_pub", "--idle-exit", "2");
            assertEquals(0, r.rc(), r.err());
            assertTrue(r.err().contains("pgrepl: replication slot \"held\" is in use by another connection; waiting up to 60 s"), r.err());
            List<JsonNode> inserts = r.lines().stream().filter(n -> n.get("type").asText().equals("insert")).toList();
            assertEquals(2, inserts.size(), r.out());
            assertEquals(0, new BigDecimal("2.50").compareTo(inserts.get(0).get("new").get("amount").decimalValue()), r.out());
            assertEquals("2025-01-02T03:04:05.678", inserts.get(0).get("new").get("at").asText());
            assertTrue(inserts.get(1).get("new").get("amount").isNull(), r.out());
        } finally {
            holderConn.close();
            dropWhenReleased(server, "held");
        }
    }

    /** A slot held for longer than the wait: the command gives up saying so, and what to do. */
    @ParameterizedTest(name = "PG {0}")
    @ValueSource(ints = {18})
    void aSlotHeldPastTheWaitFailsTheStartSayingWhy(int major) throws Exception {
        PgServer server = SERVERS.get(major);
        server.sql("postgres", "SELECT pg_create_logical_replication_slot('kept', 'pgoutput')");
        ConnectionConfig repl = ConnectionConfig.parse(Cli.url(server)).toBuilder().replication(ReplicationMode.DATABASE).build();
        PgConnection holderConn = PgConnection.connect(repl).toCompletableFuture().get(60, TimeUnit.SECONDS);
        ReconnectPolicy before = StreamRun.policy;
        StreamRun.policy = before.withSlotInUseWait(Duration.ofSeconds(2));
        try {
            holderConn.startLogical(LogicalReplicationOptions.builder("kept").publications("held_pub").build(), new LogicalStreamHandler() {})
                    .started().toCompletableFuture().get(60, TimeUnit.SECONDS);
            Cli.Result r = Cli.run("stream", Cli.url(server), "-S", "kept", "-P", "held_pub", "--idle-exit", "2");
            assertEquals(1, r.rc(), r.err());
            assertTrue(r.err().contains("pgrepl: replication slot \"kept\" is in use by another connection; waiting up to 2 s"), r.err());
            assertTrue(r.err().contains("pgrepl stream: replication slot \"kept\" is still in use by another connection after waiting 2 s"),
                    r.err());
            assertTrue(r.err().contains("55006"), "the server's refusal is quoted: " + r.err());
            assertEquals("", r.out());
        } finally {
            StreamRun.policy = before;
            holderConn.close();
            dropWhenReleased(server, "kept");
        }
    }

    /** A stop (SIGINT, SIGTERM) while the slot is waited for ends the wait at once, saying so. */
    @ParameterizedTest(name = "PG {0}")
    @ValueSource(ints = {18})
    void aStopEndsTheWaitAtOnce(int major) throws Exception {
        PgServer server = SERVERS.get(major);
        server.sql("postgres", "SELECT pg_create_logical_replication_slot('waited', 'pgoutput')");
        ConnectionConfig repl = ConnectionConfig.parse(Cli.url(server)).toBuilder().replication(ReplicationMode.DATABASE).build();
        PgConnection holderConn = PgConnection.connect(repl).toCompletableFuture().get(60, TimeUnit.SECONDS);
        PgConnection conn = PgConnection.connect(repl).toCompletableFuture().get(60, TimeUnit.SECONDS);
        ReconnectPolicy before = StreamRun.policy;
        StreamRun.policy = new ReconnectPolicy(Duration.ofSeconds(30), Duration.ofSeconds(30), 1, 0, 0, Duration.ofSeconds(60));
        try {
            holderConn.startLogical(LogicalReplicationOptions.builder("waited").publications("held_pub").build(), new LogicalStreamHandler() {})
                    .started().toCompletableFuture().get(60, TimeUnit.SECONDS);
            java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
            java.io.PrintStream errStream = new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8);
            StreamRun run = new StreamRun(StreamOptions.parse(new String[] {Cli.url(server), "-S", "waited", "-P", "held_pub"}),
                    Output.stdout(new java.io.PrintStream(new java.io.ByteArrayOutputStream(), true)), errStream);
            CompletableFuture<Integer> rc = CompletableFuture.supplyAsync(() -> {
                try {
                    return run.run(conn, repl);
                } catch (Exception e) {
                    throw new java.util.concurrent.CompletionException(e);
                }
            });
            long deadline = System.nanoTime() + Waits.CEILING.toNanos();
            while (!err.toString(java.nio.charset.StandardCharsets.UTF_8).contains("waiting up to 60 s")) {
                assertTrue(System.nanoTime() < deadline, "no wait: " + err);
                Thread.sleep(20);
            }
            long stopped = System.nanoTime();
            run.requestStop();
            Exception e = org.junit.jupiter.api.Assertions.assertThrows(java.util.concurrent.ExecutionException.class,
                    () -> rc.get(60, TimeUnit.SECONDS));
            assertTrue(CliErrors.oneLine(e).startsWith("stopped while waiting for replication slot \"waited\""), CliErrors.oneLine(e));
            // Not at the next ask, 30 s away.
            assertTrue(System.nanoTime() - stopped < TimeUnit.SECONDS.toNanos(15), "the stop waited for the next ask");
        } finally {
            StreamRun.policy = before;
            conn.close();
            holderConn.close();
            dropWhenReleased(server, "waited");
        }
    }

    /** Drops {@code slot} once no walsender holds it (a closed connection's lets go a moment later). */
    private static void dropWhenReleased(PgServer server, String slot) throws Exception {
        server.dropReplicationSlot(slot);
    }
}
