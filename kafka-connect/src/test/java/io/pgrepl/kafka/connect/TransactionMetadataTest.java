package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pgrepl.client.Row;
import io.pgrepl.codec.Lsn;
import io.pgrepl.kafka.connect.ConnectHarness.Change;
import io.pgrepl.testkit.PgServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.runtime.rest.entities.CreateConnectorRequest;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * provide.transaction.metadata and logical decoding messages against real PostgreSQL (18 and 10,
 * messages from 14) through a real Connect worker. The expected records are Debezium 3.6.1's
 * shapes written out by hand from its SchemaFactory, TransactionMonitor, PostgresTransactionMonitor
 * and LogicalDecodingMessageMonitor; the xids and LSNs come from a test_decoding slot on the same
 * server, not from the connector.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TransactionMetadataTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Debezium's TransactionMetadataKey and TransactionMetadataValue, as JsonConverter writes schemas. */
    private static final String KEY_SCHEMA = """
            {"type":"struct","optional":false,"name":"io.debezium.connector.common.TransactionMetadataKey","version":1,
             "fields":[{"type":"string","optional":false,"field":"id"}]}""";
    private static final String VALUE_SCHEMA = """
            {"type":"struct","optional":false,"name":"io.debezium.connector.common.TransactionMetadataValue","version":1,
             "fields":[{"type":"string","optional":false,"field":"status"},
                       {"type":"string","optional":false,"field":"id"},
                       {"type":"int64","optional":true,"field":"event_count"},
                       {"type":"array","optional":true,"field":"data_collections",
                        "items":{"type":"struct","optional":true,"name":"event.collection","version":1,
                                 "fields":[{"type":"string","optional":false,"field":"data_collection"},
                                           {"type":"int64","optional":false,"field":"event_count"}]}},
                       {"type":"int64","optional":false,"field":"ts_ms"}]}""";
    private static final String BLOCK_SCHEMA = """
            {"type":"struct","optional":true,"name":"event.block","version":1,"field":"transaction",
             "fields":[{"type":"string","optional":false,"field":"id"},
                       {"type":"int64","optional":false,"field":"total_order"},
                       {"type":"int64","optional":false,"field":"data_collection_order"}]}""";

    private EmbeddedConnectCluster connect;
    private final Map<Integer, PgServer> servers = new HashMap<>();

    @BeforeAll
    void start() {
        connect = ConnectHarness.start("txmeta", 1, Map.of());
    }

    @AfterAll
    void stop() {
        if (connect != null) connect.stop();
        servers.values().forEach(PgServer::close);
    }

    private PgServer server(int major) {
        return servers.computeIfAbsent(major, m -> PgServer.start(PgServer.builder().version(m).build()));
    }

    private static JsonNode json(String s) {
        try {
            return JSON.readTree(s);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static JsonNode json(byte[] b) {
        try {
            return JSON.readTree(b);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What a test_decoding slot saw of one transaction: its xid, the end of its commit record, its message LSNs. */
    private record Decoded(String xid, long end, List<Long> messages) {}

    private static Decoded decoded(PgServer pg, String slot, String marker) throws Exception {
        // Decoding reads only WAL already flushed (the test kit's servers commit asynchronously): wait for it.
        List<Row> rows = List.of();
        String xid = null;
        long until = System.nanoTime() + io.pgrepl.testkit.Waits.CEILING.toNanos();
        while (xid == null && System.nanoTime() < until) {
            rows = EndToEndTest.query(pg, "SELECT lsn::text, xid::text, data FROM pg_logical_slot_peek_changes('" + slot
                    + "', NULL, NULL)");
            for (Row r : rows) {
                if (r.get(2).contains(marker)) xid = r.get(1);
                if (xid != null && xid.equals(r.get(1)) && r.get(2).startsWith("COMMIT")) break;
            }
            final String x = xid;
            if (x == null || rows.stream().noneMatch(r -> x.equals(r.get(1)) && r.get(2).startsWith("COMMIT"))) {
                xid = null;
                Thread.sleep(100);
            }
        }
        assertNotNull(xid, "test_decoding saw no change with " + marker + ": " + rows.size() + " rows");
        long end = 0;
        List<Long> messages = new ArrayList<>();
        for (Row r : rows) {
            if (!xid.equals(r.get(1))) continue;
            if (r.get(2).startsWith("COMMIT")) end = Lsn.parse(r.get(0));
            if (r.get(2).startsWith("message:")) messages.add(Lsn.parse(r.get(0)));
        }
        assertTrue(end != 0, "test_decoding saw the commit of " + xid);
        return new Decoded(xid, end, messages);
    }

    private static List<Change> transactionRecords(List<Change> all, String topic, String xid) {
        return all.stream().filter(c -> c.topic().equals(topic) && c.value().getString("id").startsWith(xid + ":")).toList();
    }

    /** {@code data_collections} in name order: Debezium keeps them in a HashMap, so their order is not part of its shape. */
    private static JsonNode sortedCollections(JsonNode payload) {
        ObjectNode copy = payload.deepCopy();
        if (copy.get("data_collections").isArray()) {
            List<JsonNode> l = new ArrayList<>();
            copy.get("data_collections").forEach(l::add);
            l.sort(Comparator.comparing(n -> n.get("data_collection").asText()));
            ArrayNode a = copy.putArray("data_collections");
            l.forEach(a::add);
        }
        return copy;
    }

    private static Change one(List<Change> l, String topic, String op) {
        List<Change> m = l.stream().filter(c -> c.topic().equals(topic) && op.equals(c.op())).toList();
        assertEquals(1, m.size(), topic + " " + op + ": " + l);
        return m.get(0);
    }

    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("io.pgrepl.kafka.connect.ConnectHarness#newestAndOldest")
    void beginEndAndTransactionBlocksAsDebeziums(int major) throws Exception {
        PgServer pg = server(major);
        String p = "txa" + major;
        boolean messages = major >= 14;
        EndToEndTest.sql(pg, "CREATE TABLE " + p + "_items (id int PRIMARY KEY, price numeric(10,2), label varchar(20),"
                + " tags text[], note text);"
                + "CREATE TABLE \"" + p + "_Odd Name\" (id int PRIMARY KEY, v varchar(5));");
        // Slots cannot be created in a transaction that wrote (a multi-statement query is one).
        EndToEndTest.sql(pg, "SELECT pg_create_logical_replication_slot('" + p + "_td', 'test_decoding')");
        Map<String, String> cfg = EndToEndTest.connectorConfig(pg, p);
        cfg.put("provide.transaction.metadata", "true");
        connect.configureConnector(p, cfg);
        ConnectHarness.awaitRunning(connect, p, 1, "connector did not start");
        EndToEndTest.awaitSlotActive(pg, p + "_slot");

        EndToEndTest.sql(pg, "BEGIN;"
                + "INSERT INTO " + p + "_items VALUES (1, 12.50, 'it''s \"q\"', '{x,NULL}', NULL);"
                + "INSERT INTO \"" + p + "_Odd Name\" VALUES (7, 'abc');"
                + (messages ? "SELECT pg_logical_emit_message(true, 'audit', 'who');" : "")
                + "UPDATE " + p + "_items SET price = -0.01, tags = NULL WHERE id = 1;"
                + "DELETE FROM " + p + "_items WHERE id = 1;"
                + "COMMIT");
        EndToEndTest.sql(pg, "INSERT INTO " + p + "_items VALUES (2, 0, 'second', '{}', 'n')");
        Decoded tx = decoded(pg, p + "_td", "public." + p + "_items: INSERT: id[integer]:1 ");
        Decoded second = decoded(pg, p + "_td", "public." + p + "_items: INSERT: id[integer]:2 ");
        EndToEndTest.sql(pg, "SELECT pg_drop_replication_slot('" + p + "_td')");

        String txTopic = p + ".transaction";
        String items = p + ".public." + p + "_items";
        String odd = p + ".public." + p + "_Odd_Name";
        Long xid = Long.valueOf(tx.xid());
        java.util.function.Function<List<Change>, List<Change>> ofTxIn = l -> l.stream().filter(c -> (c.topic().equals(items)
                || c.topic().equals(odd) || c.topic().equals(p + ".message")) && c.value() != null
                && xid.equals(c.value().getStruct("source").getInt64("txId"))).toList();
        // Until every topic's records are in: the pattern consumer finds each new topic on its own metadata refresh.
        List<Change> all = ConnectHarness.readUntil(connect, "\\Q" + p + ".\\E.*", Map.of(),
                l -> transactionRecords(l, txTopic, second.xid()).size() == 2 && ofTxIn.apply(l).size() >= (messages ? 5 : 4),
                Duration.ofSeconds(90));
        List<Change> ofTx = ofTxIn.apply(all);
        assertEquals(messages ? 5 : 4, ofTx.size(), "the transaction's records: " + ofTx);
        // In the transaction's order (a consumer of several topics interleaves them as it likes).
        List<Change> changes = new ArrayList<>();
        changes.add(one(ofTx, items, "c"));
        changes.add(one(ofTx, odd, "c"));
        if (messages) changes.add(one(ofTx, p + ".message", "m"));
        changes.add(one(ofTx, items, "u"));
        changes.add(one(ofTx, items, "d"));
        long commitLsn = changes.get(0).value().getStruct("source").getInt64("lsn");
        long tsMs = changes.get(0).value().getStruct("source").getInt64("ts_ms");
        assertTrue(Long.compareUnsigned(commitLsn, tx.end()) < 0, "the commit record starts before it ends");

        // BEGIN then END, keyed and valued as Debezium's.
        List<Change> meta = transactionRecords(all, txTopic, tx.xid());
        assertEquals(2, meta.size(), "one BEGIN and one END: " + meta);
        JsonNode beginKey = json(meta.get(0).rawKey());
        JsonNode begin = json(meta.get(0).rawValue());
        assertEquals(json(KEY_SCHEMA), beginKey.get("schema"));
        assertEquals(json(VALUE_SCHEMA), begin.get("schema"));
        assertEquals(json("{\"id\":\"" + tx.xid() + ":" + commitLsn + "\"}"), beginKey.get("payload"));
        assertEquals(json("{\"status\":\"BEGIN\",\"id\":\"" + tx.xid() + ":" + commitLsn + "\",\"event_count\":null,"
                + "\"data_collections\":null,\"ts_ms\":" + tsMs + "}"), begin.get("payload"));
        JsonNode end = json(meta.get(1).rawValue());
        String endId = tx.xid() + ":" + Long.toUnsignedString(tx.end());
        assertEquals(json("{\"id\":\"" + endId + "\"}"), json(meta.get(1).rawKey()).get("payload"));
        String collections = "[" + (messages ? "{\"data_collection\":\"LOGICAL_DECODING_MESSAGE\",\"event_count\":1}," : "")
                + "{\"data_collection\":\"public." + p + "_Odd Name\",\"event_count\":1},"
                + "{\"data_collection\":\"public." + p + "_items\",\"event_count\":3}]";
        assertEquals(json("{\"status\":\"END\",\"id\":\"" + endId + "\",\"event_count\":" + (messages ? 5 : 4)
                + ",\"data_collections\":" + collections + ",\"ts_ms\":" + tsMs + "}"), sortedCollections(end.get("payload")));

        // Each change's transaction block: total and per-table order; the tombstone is not an event.
        String id = "\"id\":\"" + tx.xid() + ":" + commitLsn + "\"";
        List<String> blocks = new ArrayList<>(List.of(
                "{" + id + ",\"total_order\":1,\"data_collection_order\":1}",
                "{" + id + ",\"total_order\":2,\"data_collection_order\":1}"));
        int n = 2;
        if (messages) {
            blocks.add("{\"id\":\"" + tx.xid() + ":" + tx.messages().get(0) + "\",\"total_order\":3,\"data_collection_order\":1}");
            n = 3;
        }
        blocks.add("{" + id + ",\"total_order\":" + (n + 1) + ",\"data_collection_order\":2}");
        blocks.add("{" + id + ",\"total_order\":" + (n + 2) + ",\"data_collection_order\":3}");
        for (int i = 0; i < changes.size(); i++) {
            JsonNode v = json(changes.get(i).rawValue());
            assertEquals(json(blocks.get(i)), v.get("payload").get("transaction"), "record " + i + " " + changes.get(i).topic());
            JsonNode blockSchema = null;
            for (JsonNode f : v.get("schema").get("fields")) if (f.get("field").asText().equals("transaction")) blockSchema = f;
            assertEquals(json(BLOCK_SCHEMA), blockSchema);
        }
        // The rows themselves: numeric(10,2) as Debezium's precise decimal (base64 of the unscaled value), varchar(20)
        // with quotes, a text[] with a NULL element, a NULL; the update's and delete's shapes.
        assertEquals(json("{\"id\":1,\"price\":\"BOI=\",\"label\":\"it's \\\"q\\\"\",\"tags\":[\"x\",null],\"note\":null}"),
                json(changes.get(0).rawValue()).get("payload").get("after"));
        assertEquals(json("{\"id\":7,\"v\":\"abc\"}"), json(changes.get(1).rawValue()).get("payload").get("after"));
        assertEquals(json("{\"id\":1,\"price\":\"/w==\",\"label\":\"it's \\\"q\\\"\",\"tags\":null,\"note\":null}"),
                json(changes.get(messages ? 3 : 2).rawValue()).get("payload").get("after"));
        assertEquals("d", changes.get(changes.size() - 1).op());
        assertTrue(all.stream().anyMatch(c -> c.topic().equals(items) && c.value() == null), "the delete's tombstone was sent");
        if (messages) {
            JsonNode m = json(changes.get(2).rawValue()).get("payload");
            assertEquals(json("{\"prefix\":\"audit\",\"content\":\"d2hv\"}"), m.get("message"));
            assertEquals("m", m.get("op").asText());
            assertEquals(Long.parseLong(tx.xid()), m.get("source").get("txId").asLong());
            assertEquals(tx.messages().get(0).longValue(), m.get("source").get("lsn").asLong());
        }

        // The next transaction counts from 1 again.
        List<Change> next = transactionRecords(all, txTopic, second.xid());
        assertEquals("BEGIN", next.get(0).value().getString("status"));
        assertEquals(json("{\"status\":\"END\",\"id\":\"" + second.xid() + ":" + Long.toUnsignedString(second.end())
                + "\",\"event_count\":1,\"data_collections\":[{\"data_collection\":\"public." + p + "_items\",\"event_count\":1}],"
                + "\"ts_ms\":" + next.get(1).value().getInt64("ts_ms") + "}"), json(next.get(1).rawValue()).get("payload"));
        connect.deleteConnector(p);
    }

    /**
     * A task that stops in the middle of a transaction resumes from the offset of the record it got
     * to: the transaction comes again from its start, what was written is skipped, and no second
     * BEGIN is sent; the counters go on from where they were (Debezium's
     * shouldContinueTransactionEventCountersAfterRestartInMiddleOfTransaction). The offset is the
     * one pgrepl writes for the eighth row change, set while the connector is stopped.
     */
    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("io.pgrepl.kafka.connect.ConnectHarness#newestAndOldest")
    void aRestartInTheMiddleOfATransactionContinuesItsCounters(int major) throws Exception {
        PgServer pg = server(major);
        String p = "txr" + major;
        EndToEndTest.sql(pg, "CREATE TABLE " + p + "_a (id int PRIMARY KEY, amount numeric(6,3), tag varchar(8), vals int[]);"
                + "CREATE TABLE \"" + p + "_B\" (id int PRIMARY KEY, note text);"
                + "CREATE PUBLICATION " + p + "_pub FOR TABLE " + p + "_a, \"" + p + "_B\"");
        EndToEndTest.sql(pg, "SELECT pg_create_logical_replication_slot('" + p + "_slot', 'pgoutput')");
        // Slots cannot be created in a transaction that wrote (a multi-statement query is one).
        EndToEndTest.sql(pg, "SELECT pg_create_logical_replication_slot('" + p + "_td', 'test_decoding')");
        StringBuilder tx = new StringBuilder("BEGIN;");
        for (int i = 1; i <= 10; i++) {
            tx.append("INSERT INTO ").append(p).append("_a VALUES (").append(i).append(", ").append(i).append(".125, 'r")
                    .append(i).append("', '{").append(i).append(",NULL}');");
            tx.append("INSERT INTO \"").append(p).append("_B\" VALUES (").append(i).append(", NULL);");
        }
        EndToEndTest.sql(pg, tx.append("COMMIT").toString());
        Decoded d = decoded(pg, p + "_td", "public." + p + "_a: INSERT: id[integer]:1 ");
        EndToEndTest.sql(pg, "SELECT pg_drop_replication_slot('" + p + "_td')");

        Map<String, String> cfg = EndToEndTest.connectorConfig(pg, p);
        cfg.put("provide.transaction.metadata", "true");
        cfg.put("max.batch.size", "3");
        connect.configureConnector(new CreateConnectorRequest(p, cfg, CreateConnectorRequest.InitialState.STOPPED));
        // Row change 7 (the fourth row of _B), the last record written before the stop.
        Map<String, Object> offset = new HashMap<>();
        offset.put("pgrepl_lsn", d.end());
        offset.put("event", 7);
        offset.put("event_part", 0);
        offset.put("transaction_id", d.xid());
        connect.alterSourceConnectorOffset(p, Map.of("server", p), offset);
        connect.resumeConnector(p);
        ConnectHarness.awaitRunning(connect, p, 1, "connector did not start");

        String txTopic = p + ".transaction";
        List<Change> all = ConnectHarness.readUntil(connect, "\\Q" + p + ".\\E.*", Map.of(),
                l -> transactionRecords(l, txTopic, d.xid()).stream().anyMatch(c -> c.value().getString("status").equals("END"))
                        && l.stream().filter(c -> c.topic().startsWith(p + ".public.") && c.value() != null).count() >= 12,
                Duration.ofSeconds(90));
        List<Change> meta = transactionRecords(all, txTopic, d.xid());
        assertEquals(1, meta.size(), "no second BEGIN, one END: " + meta);
        assertEquals(json("{\"status\":\"END\",\"id\":\"" + d.xid() + ":" + Long.toUnsignedString(d.end()) + "\",\"event_count\":20,"
                + "\"data_collections\":[{\"data_collection\":\"public." + p + "_B\",\"event_count\":10},"
                + "{\"data_collection\":\"public." + p + "_a\",\"event_count\":10}],\"ts_ms\":"
                + meta.get(0).value().getInt64("ts_ms") + "}"), sortedCollections(json(meta.get(0).rawValue()).get("payload")));

        List<Change> rows = all.stream().filter(c -> c.topic().startsWith(p + ".public.")).toList();
        Map<Long, String> got = new java.util.TreeMap<>();
        JsonNode a5 = null;
        for (Change c : rows) {
            JsonNode v = json(c.rawValue()).get("payload");
            JsonNode t = v.get("transaction");
            assertTrue(t.get("id").asText().startsWith(d.xid() + ":"), t.toString());
            String table = c.topic().endsWith("_a") ? "a" : "B";
            int id = v.get("after").get("id").asInt();
            if (table.equals("a") && id == 5) a5 = v.get("after");
            got.put(t.get("total_order").asLong(), table + id + "/" + t.get("data_collection_order").asLong());
        }
        // Rows 5..10 of both tables: total orders 9..20, each table's own order 5..10.
        Map<Long, String> expected = new java.util.TreeMap<>();
        for (int i = 5; i <= 10; i++) {
            expected.put(2L * i - 1, "a" + i + "/" + i);
            expected.put(2L * i, "B" + i + "/" + i);
        }
        assertEquals(12, rows.size(), "rows 5..10 of both tables once each");
        assertEquals(expected, got);
        assertEquals(json("{\"id\":5,\"amount\":\"FAU=\",\"tag\":\"r5\",\"vals\":[5,null]}"), a5);
        assertFalse(rows.stream().anyMatch(c -> c.value().getStruct("after").getInt32("id") < 5), "nothing before the offset again");
        connect.deleteConnector(p);
    }

    @Test
    void logicalDecodingMessagesAsDebeziums() throws Exception {
        PgServer pg = server(18);
        String p = "txm18";
        EndToEndTest.sql(pg, "CREATE TABLE " + p + "_t (id int PRIMARY KEY);");
        // Slots cannot be created in a transaction that wrote (a multi-statement query is one).
        EndToEndTest.sql(pg, "SELECT pg_create_logical_replication_slot('" + p + "_td', 'test_decoding')");
        Map<String, String> cfg = EndToEndTest.connectorConfig(pg, p);
        cfg.put("binary.handling.mode", "hex");
        cfg.put("message.prefix.exclude.list", "skip.*");
        connect.configureConnector(p, cfg);
        ConnectHarness.awaitRunning(connect, p, 1, "connector did not start");
        EndToEndTest.awaitSlotActive(pg, p + "_slot");
        EndToEndTest.sql(pg, "SELECT pg_logical_emit_message(false, 'plain', E'\\\\x00ff'::bytea)");
        EndToEndTest.sql(pg, "SELECT pg_logical_emit_message(false, 'SKIPPED', 'x')");
        EndToEndTest.sql(pg, "BEGIN; SELECT pg_logical_emit_message(true, 'in tx', 'hi'); INSERT INTO " + p + "_t VALUES (1); COMMIT");
        Decoded tx = decoded(pg, p + "_td", "public." + p + "_t: INSERT");
        List<Row> plain = EndToEndTest.query(pg, "SELECT lsn::text FROM pg_logical_slot_peek_changes('" + p
                + "_td', NULL, NULL) WHERE data LIKE 'message: transactional: 0 prefix: plain%'");
        EndToEndTest.sql(pg, "SELECT pg_drop_replication_slot('" + p + "_td')");

        List<Change> all = ConnectHarness.readUntil(connect, "\\Q" + p + ".\\E.*", Map.of(),
                l -> l.stream().anyMatch(c -> c.topic().endsWith("_t"))
                        && l.stream().filter(c -> c.topic().equals(p + ".message")).count() >= 2, Duration.ofSeconds(90));
        List<Change> msgs = all.stream().filter(c -> c.topic().equals(p + ".message")).toList();
        assertEquals(2, msgs.size(), "the excluded prefix (matched ignoring case) is left out: " + msgs);
        String keySchema = """
                {"type":"struct","optional":false,"name":"io.debezium.connector.postgresql.MessageKey","version":1,
                 "fields":[{"type":"string","optional":true,"field":"prefix"}]}""";
        String blockSchema = """
                {"type":"struct","optional":false,"name":"io.debezium.connector.postgresql.Message","version":1,"field":"message",
                 "fields":[{"type":"string","optional":true,"field":"prefix"},{"type":"string","optional":true,"field":"content"}]}""";
        long[] lsns = {Lsn.parse(plain.get(0).get(0)), tx.messages().get(0)};
        String[][] expected = {{"plain", "00ff"}, {"in tx", "6869"}};
        for (int i = 0; i < 2; i++) {
            JsonNode key = json(msgs.get(i).rawKey());
            JsonNode value = json(msgs.get(i).rawValue());
            assertEquals(json(keySchema), key.get("schema"));
            assertEquals(json("{\"prefix\":\"" + expected[i][0] + "\"}"), key.get("payload"));
            JsonNode schema = value.get("schema");
            assertEquals("io.debezium.connector.postgresql.MessageValue", schema.get("name").asText());
            assertEquals(1, schema.get("version").asInt());
            List<String> fields = new ArrayList<>();
            schema.get("fields").forEach(f -> fields.add(f.get("field").asText()));
            assertEquals(List.of("op", "ts_ms", "source", "transaction", "message"), fields);
            assertEquals(json(blockSchema), schema.get("fields").get(4));
            JsonNode v = value.get("payload");
            assertEquals("m", v.get("op").asText());
            assertTrue(v.get("ts_ms").isNumber());
            assertEquals(json("{\"prefix\":\"" + expected[i][0] + "\",\"content\":\"" + expected[i][1] + "\"}"), v.get("message"));
            assertTrue(v.get("transaction").isNull(), "no transaction metadata asked for");
            JsonNode source = v.get("source");
            assertEquals("", source.get("schema").asText());
            assertEquals("", source.get("table").asText());
            assertEquals(lsns[i], source.get("lsn").asLong());
            assertEquals(i == 0, source.get("txId").isNull(), "a transactional message has its xid, a standalone one none");
        }
        assertEquals(Long.parseLong(tx.xid()), json(msgs.get(1).rawValue()).get("payload").get("source").get("txId").asLong());
        connect.deleteConnector(p);
    }
}
