package io.pgrepl.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pgrepl.testkit.PgServer;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The DataStream faces on one table of typed columns: {@link PgRowDeserializer}'s Java values and
 * {@link DebeziumJsonDeserializer}'s envelope (read back with Jackson) for a snapshot read, an update
 * and a delete, against the literals the rows were written with. The elements cross a network
 * shuffle, so their serializers are exercised too.
 */
class DeserializersTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(2).build());
    private static final ObjectMapper JSON = new ObjectMapper();

    private static PgServer pg;

    @BeforeAll
    static void start() {
        pg = PgServer.start(PgServer.builder().version(18).build());
    }

    /** The typed table, one per test (each test changes it). */
    private static void typed() throws Exception {
        Fixture.sql(pg, "DROP TABLE IF EXISTS \"Typed\"; CREATE TABLE \"Typed\" (id int PRIMARY KEY, price numeric(10,3), at timestamp(3), zoned timestamptz,"
                + " day date, label varchar(8), tags int[], raw bytea, ref uuid, gone text, \"Big Id\" int8, flag bool, doc jsonb,"
                + " frac timestamptz(3), note text, odd numeric);"
                + "ALTER TABLE \"Typed\" REPLICA IDENTITY FULL;"
                + "INSERT INTO \"Typed\" VALUES (1, 12.5, '2024-02-29 23:59:58.123', '2024-03-01 10:00:00+02', '1999-12-31',"
                + " 'ünï', '{1,NULL,3}', '\\x00ff', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', NULL, 9000000000, true,"
                + " '{\"k\": [1, \"é\\\\\"]}', '2024-03-01 10:00:00.5+02', E'tab\\there\\x01ctl', 'NaN')");
    }

    @AfterAll
    static void stop() {
        if (pg != null) pg.close();
    }

    private static PgreplSourceBuilder builder(String slot) {
        return PgreplSource.builder().url(pg.url(pg.superuser(), "postgres")).slotName(slot).tables("\"Typed\"");
    }

    /** Collects until {@code n} elements arrived, running {@code afterFirst} once the first one did. */
    private static <T> List<T> collect(PgreplSource<T> source, int n, String afterFirst) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        env.enableCheckpointing(200);
        List<T> got = new CopyOnWriteArrayList<>();
        Drain.until(env.fromSource(source, WatermarkStrategy.noWatermarks(), "pgrepl").rebalance().executeAndCollect("typed"), e -> {
            got.add(e);
            if (got.size() == 1) SnapshotAndStreamTest.sql(pg, afterFirst);
            return got.size() >= n;
        }, Duration.ofMinutes(2), got::toString);
        return got;
    }

    private static final String WRITES = "UPDATE \"Typed\" SET price = -0.001, tags = '{}' WHERE id = 1;"
            + " INSERT INTO \"Typed\" (id, label) VALUES (2, E'\"t\\\\w\\no'); DELETE FROM \"Typed\" WHERE id = 2;"
            + " UPDATE \"Typed\" SET id = 3 WHERE id = 1";

    @Test
    void typedRows() throws Exception {
        typed();
        List<PgRow> rows = collect(builder("typed_rows").build(new PgRowDeserializer()), 4, WRITES);
        PgRow read = rows.get(0);
        assertEquals(PgChange.Op.READ, read.op());
        assertEquals(new TableName("public", "Typed"), read.table());
        Map<String, Object> a = read.after();
        assertEquals(1, a.get("id"));
        assertEquals(new BigDecimal("12.500"), a.get("price"));
        assertEquals(LocalDateTime.of(2024, 2, 29, 23, 59, 58, 123_000_000), a.get("at"));
        assertEquals(Instant.parse("2024-03-01T08:00:00Z"), a.get("zoned"));
        assertEquals(LocalDate.of(1999, 12, 31), a.get("day"));
        assertEquals("ünï", a.get("label"));
        assertEquals(Arrays.asList(1, null, 3), a.get("tags"));
        assertTrue(Arrays.equals(new byte[] {0, (byte) 0xff}, (byte[]) a.get("raw")));
        assertEquals(UUID.fromString("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), a.get("ref"));
        assertTrue(a.containsKey("gone") && a.get("gone") == null, "SQL NULL is a null value");
        assertNull(read.commitTime());

        PgRow update = rows.get(1);
        assertEquals(PgChange.Op.UPDATE, update.op());
        assertEquals(new BigDecimal("12.500"), update.before().get("price"), "the whole old row (REPLICA IDENTITY FULL)");
        assertEquals(new BigDecimal("-0.001"), update.after().get("price"));
        assertEquals(List.of(), update.after().get("tags"));
        assertTrue(update.commitLsn() != 0 && update.commitTime() != null);
        assertEquals(PgChange.Op.INSERT, rows.get(2).op());
        PgRow delete = rows.get(3);
        assertEquals(PgChange.Op.DELETE, delete.op());
        assertEquals(2, delete.before().get("id"));
        assertNull(delete.after());
        assertEquals(rows.get(2).commitLsn(), delete.commitLsn(), "insert and delete of one transaction");
    }

    @Test
    void debeziumEnvelope() throws Exception {
        typed();
        List<String> events = collect(builder("typed_json").build(new DebeziumJsonDeserializer("shop", "postgres")), 6, WRITES);
        List<JsonNode> e = new ArrayList<>();
        for (String s : events) e.add(JSON.readTree(s));
        JsonNode read = e.get(0);
        assertEquals("r", read.get("op").asText());
        assertTrue(read.get("before").isNull());
        JsonNode a = read.get("after");
        assertEquals(1, a.get("id").asInt());
        assertEquals("12.500", a.get("price").asText());
        // 2024-02-29T23:59:58.123 UTC in microseconds since the epoch
        assertEquals(1_709_251_198_123_000L, a.get("at").asLong());
        assertEquals("2024-03-01T08:00:00Z", a.get("zoned").asText());
        assertEquals(10_956, a.get("day").asInt(), "1999-12-31 is day 10956");
        assertEquals("ünï", a.get("label").asText());
        assertEquals("[1,null,3]", a.get("tags").toString());
        assertEquals("AP8=", a.get("raw").asText());
        assertEquals("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", a.get("ref").asText());
        assertTrue(a.get("gone").isNull());
        assertEquals(9_000_000_000L, a.get("Big Id").asLong());
        assertTrue(a.get("flag").isBoolean() && a.get("flag").asBoolean());
        assertEquals("{\"k\": [1, \"é\\\\\"]}", a.get("doc").asText(), "jsonb as a string of its text, as Debezium writes it");
        // Instant.toString's shape: the fraction in groups of three digits
        assertEquals("2024-03-01T08:00:00.500Z", a.get("frac").asText());
        assertEquals("tab\there\u0001ctl", a.get("note").asText());
        assertTrue(events.get(0).contains("\"note\":\"tab\\there\\u0001ctl\""), events.get(0));
        assertEquals("NaN", a.get("odd").asText());
        JsonNode src = read.get("source");
        assertEquals("postgresql", src.get("connector").asText());
        assertEquals("shop", src.get("name").asText());
        assertEquals("postgres", src.get("db").asText());
        assertEquals("public", src.get("schema").asText());
        assertEquals("Typed", src.get("table").asText());
        assertEquals("true", src.get("snapshot").asText());

        JsonNode u = e.get(1);
        assertEquals("u", u.get("op").asText());
        assertEquals("12.500", u.get("before").get("price").asText());
        assertEquals("-0.001", u.get("after").get("price").asText());
        assertEquals("false", u.get("source").get("snapshot").asText());
        assertTrue(u.get("source").get("lsn").asLong() > 0 && u.get("source").get("txId").asLong() > 0);
        assertEquals("c", e.get(2).get("op").asText());
        JsonNode d = e.get(3);
        assertEquals("d", d.get("op").asText());
        assertTrue(d.get("after").isNull());
        assertEquals("\"t\\w\no", d.get("before").get("label").asText(), "a quote, a backslash and a newline, escaped and read back");
        // an update of the key, as Debezium writes it: a delete of the old key, then a create of the new one
        JsonNode moved = e.get(4);
        assertEquals("d", moved.get("op").asText(), e.get(4)::toString);
        assertEquals(1, moved.get("before").get("id").asInt());
        assertTrue(moved.get("after").isNull());
        JsonNode created = e.get(5);
        assertEquals("c", created.get("op").asText(), e.get(5)::toString);
        assertTrue(created.get("before").isNull());
        assertEquals(3, created.get("after").get("id").asInt());
        assertEquals("-0.001", created.get("after").get("price").asText());
        assertEquals(moved.get("source").get("lsn").asLong(), created.get("source").get("lsn").asLong());
    }

    /**
     * Whether an update moved its row to another key, for both kinds of old row: the whole row
     * (REPLICA IDENTITY FULL, compared by the key columns) and the old key alone (the default
     * identity, sent only when a key column changed), with a two-column key.
     */
    @Test
    void keyChangesAreToldApart() throws Exception {
        Fixture.sql(pg, "DROP TABLE IF EXISTS \"Keyed\"; CREATE TABLE \"Keyed\" (region text, \"No.\" int, v numeric(6,2),"
                + " PRIMARY KEY (region, \"No.\")); INSERT INTO \"Keyed\" VALUES ('eu', 1, 1.5), ('us', 2, 2.5)");
        String writes = "UPDATE \"Keyed\" SET v = 9.99 WHERE region = 'eu';"
                + " UPDATE \"Keyed\" SET \"No.\" = 7 WHERE region = 'eu';"
                + " ALTER TABLE \"Keyed\" REPLICA IDENTITY FULL;"
                + " UPDATE \"Keyed\" SET v = 0.01 WHERE region = 'us';"
                + " UPDATE \"Keyed\" SET region = 'ap' WHERE region = 'us'";
        List<PgRow> rows = collect(PgreplSource.builder().url(pg.url(pg.superuser(), "postgres")).slotName("keyed_rows")
                .tables("public.\"Keyed\"").build(new PgRowDeserializer()), 6, writes);
        List<PgRow> updates = rows.stream().filter(r -> r.op() == PgChange.Op.UPDATE).toList();
        assertEquals(4, updates.size(), rows::toString);
        assertEquals(List.of(false, true, false, true), updates.stream().map(PgRow::keyChanged).toList(), updates::toString);
        assertEquals(1, updates.get(1).before().get("No."), "the old key");
        assertEquals("us", updates.get(3).before().get("region"));
        assertTrue(rows.stream().filter(r -> r.op() != PgChange.Op.UPDATE).noneMatch(PgRow::keyChanged));
    }
}
