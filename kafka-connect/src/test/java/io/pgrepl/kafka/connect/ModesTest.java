package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pgrepl.kafka.connect.ConnectHarness.Change;
import io.pgrepl.testkit.PgServer;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The non-default modes and Debezium's type names, with three connectors on the same tables in
 * one run: {@code md} (double, base64, connect times, messages topic, no tombstones, a custom
 * placeholder, a FOR ALL TABLES publication, a failover slot), {@code ms} (string, hex, adaptive)
 * and {@code mp} (all defaults). Expected values are written out here, not computed by the code
 * under test.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ModesTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private EmbeddedConnectCluster connect;
    private PgServer pg;

    @BeforeAll
    void start() {
        pg = PgServer.start(PgServer.builder().version(18).build());
        connect = ConnectHarness.start("modes", 1, Map.of());
    }

    @AfterAll
    void stop() {
        if (connect != null) connect.stop();
        if (pg != null) pg.close();
    }

    private Map<String, String> config(String name, Map<String, String> modes) {
        Map<String, String> c = EndToEndTest.connectorConfig(pg, name);
        c.put("table.include.list", "public\\.md_.*");
        c.putAll(modes);
        return c;
    }

    private static Struct after(List<Change> all, String topic, int id, String op) {
        return all.stream().filter(c -> c.topic().equals(topic) && c.value() != null && op.equals(c.op())
                && c.value().getStruct("after").getInt32("id") == id).findFirst()
                .orElseThrow(() -> new AssertionError("no " + op + " of " + id + " on " + topic))
                .value().getStruct("after");
    }

    private static JsonNode rawAfter(List<Change> all, String topic, int id) throws Exception {
        for (Change c : all) {
            if (!c.topic().equals(topic) || c.value() == null || !"c".equals(c.op())) continue;
            JsonNode after = JSON.readTree(c.rawValue()).get("payload").get("after");
            if (after.get("id").asInt() == id) return after;
        }
        throw new AssertionError("no insert of " + id + " on " + topic);
    }

    private static byte[] bytes(Object o) {
        ByteBuffer b = o instanceof byte[] a ? ByteBuffer.wrap(a) : ((ByteBuffer) o).duplicate();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    @Test
    void modesAndTypeNamesFollowDebezium() throws Exception {
        EndToEndTest.sql(pg, """
                CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy');
                CREATE TABLE md_t (id int PRIMARY KEY, n numeric(10,3), nv numeric, m money, by bytea, d date,
                  tm3 time(3), tm time, ts3 timestamp(3), ts timestamp, f8 float8, e mood, b1 bit(1), b10 bit(10),
                  vb varbit(5), x xml, big text, k int, ea mood[], tz3 timestamptz(3), tz timestamptz);
                """);
        Map<String, Map<String, String>> connectors = Map.of(
                "md", Map.of("decimal.handling.mode", "double", "binary.handling.mode", "base64",
                        "time.precision.mode", "connect", "messages.topic", "md.messages", "tombstones.on.delete", "false",
                        "unavailable.value.placeholder", "__gone", "publication.autocreate.mode", "all_tables",
                        "slot.failover", "true"),
                "ms", Map.of("decimal.handling.mode", "string", "binary.handling.mode", "hex",
                        "time.precision.mode", "adaptive"),
                "mp", Map.of("money.fraction.digits", "1"));
        for (var e : connectors.entrySet()) connect.configureConnector(e.getKey(), config(e.getKey(), e.getValue()));
        for (String n : connectors.keySet()) {
            ConnectHarness.awaitRunning(connect, n, 1, n + " did not start");
            EndToEndTest.awaitSlotActive(pg, n + "_slot");
        }
        assertEquals("t", EndToEndTest.query(pg, "SELECT failover FROM pg_replication_slots WHERE slot_name = 'md_slot'")
                .get(0).get(0), "slot.failover=true created a failover slot");
        assertEquals("f", EndToEndTest.query(pg, "SELECT failover FROM pg_replication_slots WHERE slot_name = 'mp_slot'")
                .get(0).get(0));
        assertEquals("t", EndToEndTest.query(pg, "SELECT puballtables FROM pg_publication WHERE pubname = 'md_pub'")
                .get(0).get(0), "publication.autocreate.mode=all_tables created a FOR ALL TABLES publication");

        EndToEndTest.sql(pg, "INSERT INTO md_t VALUES (1, '1234.5', '-0.000120', '-1234.56', '\\x00ff10', '2024-03-01',"
                + " '12:34:56.789', '12:34:56.789012', '2024-03-01 12:34:56.789', '2024-03-01 12:34:56.789012', '-0',"
                + " 'ok', B'1', B'1000000001', B'101', '<a>1</a>',"
                + " (SELECT string_agg(md5(x::text), '') FROM generate_series(1, 400) x), 1, '{happy,NULL,sad}',"
                + " '2024-03-01 12:34:56.5+00', '2024-03-01 12:34:56+00');"
                + "INSERT INTO md_t (id) VALUES (2)");
        EndToEndTest.sql(pg, "UPDATE md_t SET k = 2 WHERE id = 1"); // big stays, TOASTed and unchanged
        EndToEndTest.sql(pg, "DELETE FROM md_t WHERE id = 2");
        EndToEndTest.sql(pg, "BEGIN; SELECT pg_logical_emit_message(true, 'pfx', 'in a transaction');"
                + " INSERT INTO md_t (id) VALUES (3); COMMIT");
        EndToEndTest.sql(pg, "SELECT pg_logical_emit_message(false, 'pfx', 'on its own')");
        // An enum created while streaming, in a table only the FOR ALL TABLES publication has.
        EndToEndTest.sql(pg, "CREATE TYPE late AS ENUM ('z', 'a'); CREATE TABLE md_late (id int PRIMARY KEY, l late,"
                + " la late[]); INSERT INTO md_late VALUES (1, 'a', '{a,z}')");
        // REPLICA IDENTITY FULL: pgoutput flags every column as identity, NULLs included
        EndToEndTest.sql(pg, "CREATE TABLE md_full (id int PRIMARY KEY, v text); ALTER TABLE md_full REPLICA IDENTITY FULL;"
                + " INSERT INTO md_full VALUES (1, NULL); UPDATE md_full SET v = 'x'; DELETE FROM md_full");
        EndToEndTest.sql(pg, "INSERT INTO md_t (id) VALUES (99)");

        List<Change> all = ConnectHarness.readUntil(connect,
                "(md|ms|mp)\\.public\\.md_t|md\\.messages|mp\\.message|md\\.public\\.md_late|md\\.public\\.md_full",
                // every topic's last record: topics are discovered and fetched in no particular order
                Map.of(), l -> List.of("md", "ms", "mp").stream().allMatch(n -> l.stream().anyMatch(c ->
                        c.topic().equals(n + ".public.md_t") && c.value() != null && "c".equals(c.op())
                                && c.value().getStruct("after").getInt32("id") == 99))
                        && l.stream().filter(c -> c.topic().equals("mp.message")).count() >= 2
                        && l.stream().anyMatch(c -> c.topic().equals("md.public.md_late"))
                        && l.stream().anyMatch(c -> c.topic().equals("md.public.md_full") && "d".equals(c.op()))
                        && l.stream().filter(c -> c.topic().equals("md.messages")).count() >= 2,
                Duration.ofSeconds(90));

        // decimal.handling.mode
        assertEquals(1234.5, after(all, "md.public.md_t", 1, "c").get("n"));
        assertEquals(-1234.56, after(all, "md.public.md_t", 1, "c").get("m"));
        assertEquals(-0.00012, after(all, "md.public.md_t", 1, "c").get("nv"));
        assertEquals("1234.500", after(all, "ms.public.md_t", 1, "c").get("n"));
        assertEquals("-1234.56", after(all, "ms.public.md_t", 1, "c").get("m"));
        assertEquals("-0.000120", after(all, "ms.public.md_t", 1, "c").get("nv"));
        Struct p = after(all, "mp.public.md_t", 1, "c");
        assertEquals(new BigDecimal("1234.500"), p.get("n"));
        assertEquals("10", p.schema().field("n").schema().parameters().get("connect.decimal.precision"));
        // money: Debezium's Decimal of scale money.fraction.digits, rounded half up (-1234.56 at 1 digit)
        assertEquals(new BigDecimal("-1234.6"), p.get("m"));
        assertEquals("org.apache.kafka.connect.data.Decimal", p.schema().field("m").schema().name());
        assertEquals("1", p.schema().field("m").schema().parameters().get("scale"));

        // binary.handling.mode
        assertEquals("AP8Q", after(all, "md.public.md_t", 1, "c").get("by"));
        assertEquals("00ff10", after(all, "ms.public.md_t", 1, "c").get("by"));
        assertArrayEquals(new byte[] {0, (byte) 0xff, 0x10}, bytes(p.get("by")));

        // time.precision.mode: connect (java.util.Date, millisecond precision)
        long days = LocalDate.of(2024, 3, 1).toEpochDay();
        long tm3Millis = LocalTime.of(12, 34, 56, 789_000_000).toNanoOfDay() / 1_000_000;
        long tsMillis = LocalDateTime.of(2024, 3, 1, 12, 34, 56, 789_000_000).toInstant(ZoneOffset.UTC).toEpochMilli();
        Struct md = after(all, "md.public.md_t", 1, "c");
        assertEquals(days * 86_400_000L, ((java.util.Date) md.get("d")).getTime());
        assertEquals("org.apache.kafka.connect.data.Date", md.schema().field("d").schema().name());
        assertEquals(tm3Millis, ((java.util.Date) md.get("tm3")).getTime());
        assertEquals(tm3Millis, ((java.util.Date) md.get("tm")).getTime(), "connect mode truncates to milliseconds");
        assertEquals(tsMillis, ((java.util.Date) md.get("ts")).getTime());
        // adaptive: time(3) as Time (ms), time(6) as MicroTime, timestamp(3) as Timestamp, timestamp(6) as MicroTimestamp
        Struct ms = after(all, "ms.public.md_t", 1, "c");
        assertEquals("io.debezium.time.Time", ms.schema().field("tm3").schema().name());
        assertEquals((int) tm3Millis, ms.get("tm3"));
        assertEquals("io.debezium.time.MicroTime", ms.schema().field("tm").schema().name());
        assertEquals(tm3Millis * 1000 + 12, ms.get("tm"));
        assertEquals("io.debezium.time.Timestamp", ms.schema().field("ts3").schema().name());
        assertEquals(tsMillis, ms.get("ts3"));
        assertEquals("io.debezium.time.MicroTimestamp", ms.schema().field("ts").schema().name());
        assertEquals(tsMillis * 1000 + 12, ms.get("ts"));
        assertEquals("io.debezium.time.Date", ms.schema().field("d").schema().name());
        assertEquals((int) days, ms.get("d"));
        // adaptive is the default, as Debezium's: time(3) as Time
        assertEquals("io.debezium.time.Time", p.schema().field("tm3").schema().name());
        assertEquals((int) tm3Millis, p.get("tm3"));

        // Debezium's names: enums with their labels in order, bits, xml
        Schema e = p.schema().field("e").schema();
        assertEquals("io.debezium.data.Enum", e.name());
        assertEquals("sad,ok,happy", e.parameters().get("allowed"));
        assertEquals("ok", p.get("e"));
        Schema late = after(all, "md.public.md_late", 1, "c").schema().field("l").schema();
        assertEquals("io.debezium.data.Enum", late.name(), "an enum created while streaming");
        assertEquals("z,a", late.parameters().get("allowed"));
        // enum arrays: ARRAYs of the enum's schema (one created while streaming, too)
        Schema ea = p.schema().field("ea").schema();
        assertEquals(Schema.Type.ARRAY, ea.type());
        assertEquals("io.debezium.data.Enum", ea.valueSchema().name());
        assertEquals("sad,ok,happy", ea.valueSchema().parameters().get("allowed"));
        assertEquals(Arrays.asList("happy", null, "sad"), p.get("ea"));
        Struct lateRow = after(all, "md.public.md_late", 1, "c");
        assertEquals("z,a", lateRow.schema().field("la").schema().valueSchema().parameters().get("allowed"));
        assertEquals(List.of("a", "z"), lateRow.get("la"));
        // REPLICA IDENTITY FULL: the key is the primary key as Debezium's (pgoutput flags every column),
        // so a NULL elsewhere is no key field and changing v is an update, not a key change
        List<Change> full = all.stream().filter(c -> c.topic().equals("md.public.md_full") && c.value() != null).toList();
        assertEquals(List.of("c", "u", "d"), full.stream().map(Change::op).toList());
        for (Change c : full) {
            assertEquals(List.of("id"), c.key().schema().fields().stream().map(f -> f.name()).toList());
            assertEquals(1, c.key().get("id"));
        }
        // key columns are required in the row as in Debezium's, the others optional
        Schema fullRow = full.get(0).value().schema().field("after").schema();
        assertFalse(fullRow.field("id").schema().isOptional());
        assertTrue(fullRow.field("v").schema().isOptional());
        assertFalse(p.schema().field("id").schema().isOptional());
        assertTrue(p.schema().field("k").schema().isOptional());
        assertNull(full.get(0).value().getStruct("after").get("v"));
        assertEquals("x", full.get(1).value().getStruct("after").get("v"));
        assertNull(full.get(1).value().getStruct("before").get("v"), "FULL sends the old row as before");
        // timestamptz: the fraction padded to the declared precision (6 when none is declared)
        assertEquals("2024-03-01T12:34:56.500Z", p.get("tz3"));
        assertEquals("2024-03-01T12:34:56.000000Z", p.get("tz"));
        assertEquals(Schema.Type.BOOLEAN, p.schema().field("b1").schema().type());
        assertEquals(true, p.get("b1"));
        assertEquals("io.debezium.data.Bits", p.schema().field("b10").schema().name());
        assertEquals("10", p.schema().field("b10").schema().parameters().get("length"));
        // bit 0 is the last character: 1000000001 -> bits 0 and 9 -> little-endian bytes 01 02
        assertArrayEquals(new byte[] {0x01, 0x02}, bytes(p.get("b10")));
        assertArrayEquals(new byte[] {0x05}, bytes(p.get("vb")));
        assertEquals("io.debezium.data.Xml", p.schema().field("x").schema().name());
        assertEquals("<a>1</a>", p.get("x"));

        // float8 -0 keeps its sign on the wire (the JSON the worker wrote, read without BigDecimal)
        JsonNode f8 = rawAfter(all, "mp.public.md_t", 1).get("f8");
        assertEquals(Double.doubleToRawLongBits(-0.0), Double.doubleToRawLongBits(f8.asDouble()), "f8 is " + f8);

        // unavailable.value.placeholder: the unchanged TOASTed column of the update
        assertEquals("__gone", after(all, "md.public.md_t", 1, "u").get("big"));
        assertEquals(EndToEndTest.PLACEHOLDER, after(all, "mp.public.md_t", 1, "u").get("big"));

        // tombstones.on.delete=false: the delete, and no null value after it
        for (String n : List.of("md", "mp")) {
            assertTrue(all.stream().anyMatch(c -> c.topic().equals(n + ".public.md_t") && "d".equals(c.op())), n);
        }
        assertFalse(all.stream().anyMatch(c -> c.topic().equals("md.public.md_t") && c.value() == null),
                "md sent a tombstone although tombstones.on.delete=false");
        assertTrue(all.stream().anyMatch(c -> c.topic().equals("mp.public.md_t") && c.value() == null),
                "mp (default) sent a tombstone");

        // messages.topic: the transactional and the non-transactional message, their content in
        // binary.handling.mode's form (md: base64), as Debezium's; the others write <topic.prefix>.message.
        Map<String, String> messages = new HashMap<>();
        for (Change c : all) {
            if (!c.topic().equals("md.messages")) continue;
            Struct m = c.value().getStruct("message");
            messages.put(new String(java.util.Base64.getDecoder().decode(m.getString("content")), StandardCharsets.UTF_8),
                    m.getString("prefix"));
            assertEquals("m", c.op());
        }
        assertEquals(Map.of("in a transaction", "pfx", "on its own", "pfx"), messages);
        assertNull(all.stream().filter(c -> c.topic().startsWith("ms.") || c.topic().startsWith("mp."))
                .filter(c -> c.topic().contains("messages")).findFirst().orElse(null));
        assertEquals(2, all.stream().filter(c -> c.topic().equals("mp.message")).count(), "mp's messages on Debezium's topic");
        for (String n : connectors.keySet()) connect.deleteConnector(n);
    }

    /**
     * A transaction applied under a replication origin (as a subscription's apply worker does) carries
     * pgoutput's Origin message: {@code source.origin} and {@code source.origin_lsn} name it, as in
     * Debezium; the next transaction, without an origin, has both null again.
     */
    @Test
    void aReplicationOriginFillsSourceOrigin() throws Exception {
        EndToEndTest.sql(pg, "CREATE TABLE og_t (id int PRIMARY KEY)");
        Map<String, String> c = EndToEndTest.connectorConfig(pg, "og");
        connect.configureConnector("og", c);
        ConnectHarness.awaitRunning(connect, "og", 1, "connector did not start");
        EndToEndTest.awaitSlotActive(pg, "og_slot");
        // One session: the origin is set up for it, then one transaction is stamped with the origin's LSN.
        EndToEndTest.sql(pg, "SELECT pg_replication_origin_create('upstream_a');"
                + " SELECT pg_replication_origin_session_setup('upstream_a');"
                + " BEGIN; SELECT pg_replication_origin_xact_setup('0/ABCDEF', now()); INSERT INTO og_t VALUES (1); COMMIT;"
                + " SELECT pg_replication_origin_session_reset()");
        EndToEndTest.sql(pg, "INSERT INTO og_t VALUES (2)");
        List<Change> all = ConnectHarness.readUntil(connect, "\\Qog.public.og_t\\E", Map.of(),
                l -> l.size() >= 2, Duration.ofSeconds(60));
        assertEquals(2, all.size());
        Struct first = all.get(0).value().getStruct("source");
        Struct second = all.get(1).value().getStruct("source");
        assertEquals(1, all.get(0).value().getStruct("after").getInt32("id"));
        assertEquals("upstream_a", first.getString("origin"));
        assertEquals(0xABCDEFL, first.getInt64("origin_lsn"));
        assertNull(second.get("origin"));
        assertNull(second.get("origin_lsn"));
        connect.deleteConnector("og");
    }
}
