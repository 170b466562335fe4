package io.pgrepl.cli;

import static io.pgrepl.cli.Cli.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.buffer.Unpooled;
import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.Row;
import io.pgrepl.client.snapshot.incremental.SnapshotSignal;
import io.pgrepl.client.snapshot.incremental.SnapshotSignals;
import io.pgrepl.codec.pgoutput.LogicalMessage;
import io.pgrepl.codec.pgoutput.PgOutputDecoder;
import io.pgrepl.codec.pgoutput.PgOutputHandler;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.junit.PgServerConfig;
import io.pgrepl.testkit.junit.PgTest;
import io.pgrepl.testkit.Waits;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** {@code pgrepl snapshot}: the signal read back through a pgoutput slot (18) or from the signal table (10). */
@PgTest
class SnapshotCommandTest {

    @Test
    void requestAndPauseArriveThroughTheSlotOn18(@PgServerConfig(version = 18) PgServer s) throws Exception {
        s.sql("postgres", "DROP PUBLICATION IF EXISTS sc_pub; CREATE PUBLICATION sc_pub FOR ALL TABLES");
        s.sql("postgres", "SELECT pg_create_logical_replication_slot('sc_slot', 'pgoutput')");
        String url = Cli.url(s);
        Cli.Result r = run("snapshot", "request", url, "--slot", "sc_slot", "public.orders", "s.\"Odd\"",
                "--where", "public.orders=note = 'it''s; fine' AND id > 10", "--id", "req-1");
        assertEquals(0, r.rc(), r.err());
        JsonNode printed = Cli.parse(r.out());
        assertEquals("logical-message", printed.get("sent").asText());
        assertEquals("pgrepl", printed.get("prefix").asText());
        assertTrue(printed.get("lsn").asText().matches("[0-9A-F]+/[0-9A-F]+"), printed.toString());
        assertEquals(0, run("snapshot", "pause", url, "--slot", "sc_slot").rc());

        // The test kit runs with synchronous_commit=off: the messages are decodable once the WAL writer
        // has flushed them (peek reads up to the flushed position), so wait for them.
        List<String> messages = messages(s, "sc_slot", "sc_pub");
        long end = System.nanoTime() + Waits.CEILING.toNanos();
        while (messages.size() < 2 && System.nanoTime() < end) {
            Thread.sleep(50);
            messages = messages(s, "sc_slot", "sc_pub");
        }
        assertEquals(2, messages.size(), messages.toString());
        JsonNode sent = Cli.parse(messages.get(0));
        assertEquals(printed.get("signal"), sent, "printed what it sent");
        assertEquals("execute-snapshot", sent.get("type").asText());
        assertEquals("req-1", sent.get("id").asText());
        assertEquals("sc_slot", sent.get("slot").asText());
        assertEquals("public.orders", sent.get("data").get("data-collections").get(0).asText());
        assertEquals("s.\"Odd\"", sent.get("data").get("data-collections").get(1).asText());
        assertEquals("incremental", sent.get("data").get("type").asText());
        assertEquals("public.orders", sent.get("data").get("additional-conditions").get(0).get("data-collection").asText());
        assertEquals("note = 'it''s; fine' AND id > 10", sent.get("data").get("additional-conditions").get(0).get("filter").asText());
        SnapshotSignal parsed = SnapshotSignals.parseMessage(messages.get(0));
        assertEquals(Map.of("public.orders", "note = 'it''s; fine' AND id > 10"), parsed.additionalConditions());
        assertEquals(SnapshotSignal.Type.PAUSE, SnapshotSignals.parseMessage(messages.get(1)).type());
    }

    @Test
    void signalTableOn10(@PgServerConfig(version = 10) PgServer s) throws Exception {
        s.sql("postgres", "DROP TABLE IF EXISTS dbz_signal;"
                + " CREATE TABLE dbz_signal (id varchar(42) PRIMARY KEY, type varchar(32) NOT NULL, data varchar(2048))");
        String url = Cli.url(s);
        Cli.Result r = run("snapshot", "stop", url, "--signal-table", "public.dbz_signal", "public.orders");
        assertEquals(0, r.rc(), r.err());
        JsonNode printed = Cli.parse(r.out());
        assertEquals("signal-table", printed.get("sent").asText());
        Cli.Result refused = run("snapshot", "resume", url, "--slot", "s1");
        assertEquals(2, refused.rc());
        assertTrue(refused.err().contains("PostgreSQL 10 cannot pass logical messages to a pgoutput stream (14+ can):"
                + " insert the signal into a signal table"), refused.err());

        try (PgConnection c = PgConnection.connect(ConnectionConfig.parse(url).toBuilder().replication(ReplicationMode.NONE).build())
                .toCompletableFuture().get(60, TimeUnit.SECONDS)) {
            List<Row> rows = c.query("SELECT id, type, data FROM dbz_signal").toCompletableFuture().get(60, TimeUnit.SECONDS).rows();
            assertEquals(1, rows.size());
            Row row = rows.get(0);
            assertEquals(printed.get("id").asText(), row.get(0));
            assertEquals(36, row.get(0).length(), "a UUID fits Debezium's varchar(42) id");
            assertEquals("stop-snapshot", row.get(1));
            JsonNode data = Cli.parse(row.get(2));
            assertEquals(printed.get("data"), data);
            assertEquals("public.orders", data.get("data-collections").get(0).asText());
            SnapshotSignal parsed = SnapshotSignals.parse(row.get(0), row.get(1), row.get(2));
            assertEquals(SnapshotSignal.Type.STOP, parsed.type());
            assertEquals(List.of("public.orders"), parsed.dataCollections());
        }
    }

    @Test
    void usageErrorsExit2() {
        String url = "postgresql://nobody@127.0.0.1:1/x";
        assertUsage("missing request, stop, pause or resume", "snapshot");
        assertUsage("unknown snapshot command go; use request, stop, pause or resume", "snapshot", "go", url);
        assertUsage("missing URL", "snapshot", "request", "--slot", "s");
        assertUsage("--slot is required (or --signal-table)", "snapshot", "request", url, "a.b");
        assertUsage("--slot: replication slot name \"S-1\" contains invalid character; only lower case letters, numbers and"
                + " underscore are allowed", "snapshot", "request", url, "--slot", "S-1", "a.b");
        assertUsage("missing TABLE to snapshot", "snapshot", "request", url, "--slot", "s");
        assertUsage("pause applies to the whole snapshot and takes no TABLE", "snapshot", "pause", url, "--slot", "s", "a.b");
        assertUsage("--where and --surrogate-key go with request only", "snapshot", "stop", url, "--slot", "s", "--where", "a.b=x");
        assertUsage("--where takes schema.table=condition, got a.b", "snapshot", "request", url, "--slot", "s", "a.b", "--where", "a.b");
        assertUsage("--where names c.d, which is not a TABLE to snapshot", "snapshot", "request", url, "--slot", "s", "a.b",
                "--where", "c.d=x > 1");
        assertUsage("data.additional-conditions[0].filter: additional condition has a ';' (one expression only) at offset 5",
                "snapshot", "request", url, "--slot", "s", "a.b", "--where", "a.b=x > 1; DROP TABLE a.b");
        assertUsage("--signal-table: invalid qualified name: a.b.c", "snapshot", "pause", url, "--signal-table", "a.b.c");
    }

    private static void assertUsage(String message, String... args) {
        Cli.Result r = run(args);
        assertEquals(2, r.rc(), r.err());
        assertEquals("", r.out());
        assertTrue(r.err().startsWith("pgrepl snapshot: " + message + "\n"), r.err());
    }

    /** The logical messages with prefix pgrepl in the slot, read with pgoutput's messages option and decoded by the codec. */
    private static List<String> messages(PgServer s, String slot, String pub) throws Exception {
        List<String> out = new ArrayList<>();
        try (PgConnection c = PgConnection.connect(ConnectionConfig.parse(Cli.url(s)).toBuilder().replication(ReplicationMode.NONE).build())
                .toCompletableFuture().get(60, TimeUnit.SECONDS)) {
            List<Row> rows = c.query("SELECT encode(data, 'hex') FROM pg_logical_slot_peek_binary_changes('" + slot + "', NULL, NULL,"
                    + " 'proto_version', '1', 'publication_names', '" + pub + "', 'messages', 'true')")
                    .toCompletableFuture().get(60, TimeUnit.SECONDS).rows();
            PgOutputDecoder decoder = new PgOutputDecoder();
            for (Row row : rows) {
                decoder.decode(Unpooled.wrappedBuffer(HexFormat.of().parseHex(row.get(0))), new PgOutputHandler() {
                    @Override
                    public void onMessage(LogicalMessage m) {
                        assertTrue(m.transactional(), "sent inside a transaction");
                        if (m.prefixEquals("pgrepl")) out.add(m.content().toString(StandardCharsets.UTF_8));
                    }
                });
            }
        }
        assertNotNull(out);
        return out;
    }
}
