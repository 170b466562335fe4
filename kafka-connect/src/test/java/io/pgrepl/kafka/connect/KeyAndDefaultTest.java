package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.kafka.connect.ConnectHarness.Change;
import io.pgrepl.testkit.PgServer;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Keys of tables without a primary key, and column defaults in field schemas, as Debezium 3.6.1
 * gives them (its TablesWithoutPrimaryKeyIT, PostgresDefaultValueConverter): in the initial
 * snapshot's reads and in the stream, after the records pass through Connect's JsonConverter. The
 * expected values are written from Debezium's rules: the first unique index by name when there is
 * no primary key, an expression index skipped; a default read from its literal and converted as a
 * value, the type's zero for a function or CURRENT_TIMESTAMP, none for NULL, a domain, an array,
 * bytea or an unconstrained numeric.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class KeyAndDefaultTest {
    private EmbeddedConnectCluster connect;
    private final List<PgServer> servers = new ArrayList<>();

    @BeforeAll
    void start() {
        connect = ConnectHarness.start("keydefault", 1, Map.of());
    }

    @AfterAll
    void stop() {
        if (connect != null) connect.stop();
        servers.forEach(PgServer::close);
    }

    private static final String DDL = """
            CREATE TYPE kd_mood AS ENUM ('sad', 'ok', 'happy');
            CREATE DOMAIN kd_pos AS int DEFAULT 7 CHECK (VALUE > 0);
            CREATE TABLE kd_t (
              id serial PRIMARY KEY,
              amount numeric(5,2) DEFAULT 1.50,
              loose numeric DEFAULT 2.5,
              at timestamp(3) DEFAULT '2024-05-06 07:08:09.123',
              ct timestamp DEFAULT CURRENT_TIMESTAMP,
              made timestamptz DEFAULT now(),
              d date DEFAULT '2024-02-29',
              t time DEFAULT '12:34:56.789012',
              iv interval DEFAULT '1 day',
              flags bit(4) DEFAULT B'1010',
              flag bit(1) DEFAULT B'1',
              name varchar(10) DEFAULT 'x',
              "Quoted ""col""\" text DEFAULT 'q',
              mood kd_mood DEFAULT 'happy',
              tags text[] DEFAULT '{a,b}',
              pos kd_pos,
              pos2 kd_pos DEFAULT 3,
              n int DEFAULT NULL,
              big bigint DEFAULT -9,
              ok boolean DEFAULT true,
              price float8 DEFAULT 1.25,
              u uuid DEFAULT 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11',
              j jsonb DEFAULT '{"a": 1}',
              b bytea DEFAULT '\\x01',
              plain int
            );
            INSERT INTO kd_t (plain) VALUES (1);
            CREATE TABLE kd_u1 (pk int UNIQUE, val int);
            CREATE TABLE kd_u2 (a int NOT NULL, b int, CONSTRAINT kd_u2_b UNIQUE (b), CONSTRAINT kd_u2_a UNIQUE (a));
            CREATE TABLE kd_u3 (v int, w int);
            CREATE UNIQUE INDEX kd_u3_a ON kd_u3 ((v + w));
            CREATE UNIQUE INDEX kd_u3_z ON kd_u3 (w);
            CREATE TABLE kd_u4 (v int, w int);
            INSERT INTO kd_u1 VALUES (1, 10); INSERT INTO kd_u2 VALUES (1, 10); INSERT INTO kd_u3 VALUES (1, 10);
            INSERT INTO kd_u4 VALUES (1, 10);
            """;

    @ParameterizedTest
    @MethodSource("io.pgrepl.kafka.connect.ConnectHarness#newestAndOldest")
    void keysWithoutPrimaryKeyAndDefaultsAsDebeziumGivesThem(int major) throws Exception {
        PgServer pg = PgServer.start(PgServer.builder().version(major).build());
        servers.add(pg);
        EndToEndTest.sql(pg, DDL);
        String name = "kd" + major;
        Map<String, String> c = EndToEndTest.connectorConfig(pg, name);
        c.put("table.include.list", "public\\.kd_.*");
        c.put("snapshot.mode", "initial");
        connect.configureConnector(name, c);
        ConnectHarness.awaitRunning(connect, name, 1, name + " did not start");
        EndToEndTest.awaitSlotActive(pg, name + "_slot");
        EndToEndTest.sql(pg, "INSERT INTO kd_t (plain) VALUES (2); INSERT INTO kd_u1 VALUES (2, 20);"
                + " INSERT INTO kd_u2 VALUES (2, 20); INSERT INTO kd_u3 VALUES (2, 20);"
                + " ALTER TABLE kd_u4 REPLICA IDENTITY FULL; UPDATE kd_u4 SET w = 11; DELETE FROM kd_u4");
        String prefix = name + ".public.";
        // The catalog is read when a Relation is handled, which may be after later DDL (as Debezium reads it):
        // the change before the new default is delivered first.
        ConnectHarness.readUntil(connect, name + "\\.public\\.kd_t", Map.of(), l -> l.size() == 2, Duration.ofSeconds(60), 0);
        // A new default, and no column changed: pgoutput sends the Relation again, and the next insert's schema carries it.
        EndToEndTest.sql(pg, "ALTER TABLE kd_t ALTER COLUMN amount SET DEFAULT 2.75");
        EndToEndTest.sql(pg, "INSERT INTO kd_t (plain) VALUES (3)");

        List<Change> all = ConnectHarness.readUntil(connect, name + "\\.public\\.kd_.*", Map.of(),
                l -> l.stream().filter(x -> x.topic().equals(prefix + "kd_t")).count() == 3
                        && l.stream().filter(x -> x.topic().equals(prefix + "kd_u4") && x.value() != null).count() == 3,
                Duration.ofSeconds(60));
        // No primary key: the first unique index by name (an index on an expression skipped), or no key.
        assertKey(of(all, prefix + "kd_u1"), "pk", true);
        assertKey(of(all, prefix + "kd_u2"), "a", false);
        assertKey(of(all, prefix + "kd_u3"), "w", true);
        List<Change> u4 = of(all, prefix + "kd_u4");
        assertEquals(List.of("r", "u", "d"), u4.stream().map(Change::op).toList());
        for (Change x : u4) assertNull(x.key(), "no unique index: no key (" + x.op() + ")");
        assertEquals(10, u4.get(1).value().getStruct("before").getInt32("w"));
        assertEquals(11, u4.get(2).value().getStruct("before").getInt32("w"));
        List<Change> t = of(all, prefix + "kd_t");
        assertEquals(List.of("r", "c", "c"), t.stream().map(Change::op).toList());
        for (Change x : t) {
            Schema key = x.key().schema();
            assertEquals(0, key.field("id").schema().defaultValue(), "serial: nextval gives Debezium's zero, in the key too");
            Schema row = x.value().schema().field("after").schema();
            assertEquals(0, row.field("id").schema().defaultValue());
            BigDecimal amount = (BigDecimal) row.field("amount").schema().defaultValue();
            int plain = x.value().getStruct("after").getInt32("plain");
            assertEquals(plain == 3 ? new BigDecimal("2.75") : new BigDecimal("1.50"), amount, "plain=" + plain);
            assertNull(row.field("loose").schema().defaultValue(), "VariableScaleDecimal is a struct: none");
            assertEquals(Instant.parse("2024-05-06T07:08:09.123Z").toEpochMilli(), row.field("at").schema().defaultValue());
            assertEquals("io.debezium.time.Timestamp", row.field("at").schema().name());
            assertEquals(0L, row.field("ct").schema().defaultValue(), "CURRENT_TIMESTAMP: the epoch");
            assertEquals("1970-01-01T00:00:00.000000Z", row.field("made").schema().defaultValue(), "now(): the epoch");
            assertEquals((int) LocalDate.of(2024, 2, 29).toEpochDay(), row.field("d").schema().defaultValue());
            assertEquals(((12 * 60 + 34) * 60 + 56) * 1_000_000L + 789_012, row.field("t").schema().defaultValue());
            assertEquals(86_400_000_000L, row.field("iv").schema().defaultValue());
            assertArrayEquals(new byte[] {0b1010}, bytes(row.field("flags").schema().defaultValue()));
            assertEquals(true, row.field("flag").schema().defaultValue());
            assertEquals("x", row.field("name").schema().defaultValue());
            assertEquals("q", row.field("Quoted \"col\"").schema().defaultValue());
            assertEquals("happy", row.field("mood").schema().defaultValue());
            assertEquals("io.debezium.data.Enum", row.field("mood").schema().name());
            assertNull(row.field("tags").schema().defaultValue(), "arrays: none");
            assertNull(row.field("pos").schema().defaultValue(), "a domain's own default is not the column's");
            assertNull(row.field("pos2").schema().defaultValue(), "a domain column: none");
            assertNull(row.field("n").schema().defaultValue(), "DEFAULT NULL: none");
            assertEquals(-9L, row.field("big").schema().defaultValue());
            assertEquals(true, row.field("ok").schema().defaultValue());
            assertEquals(1.25d, row.field("price").schema().defaultValue());
            assertEquals("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", row.field("u").schema().defaultValue());
            assertEquals("{\"a\": 1}", row.field("j").schema().defaultValue());
            assertNull(row.field("b").schema().defaultValue(), "bytea: none");
            assertNull(row.field("plain").schema().defaultValue());
        }

        connect.deleteConnector(name);
    }

    private static void assertKey(List<Change> records, String field, boolean optional) {
        assertEquals(List.of("r", "c"), records.stream().map(Change::op).toList());
        for (Change x : records) {
            Struct key = x.key();
            assertNotNull(key, x.topic() + " " + x.op());
            assertEquals(1, key.schema().fields().size());
            assertEquals(optional, key.schema().field(field).schema().isOptional());
            assertEquals(x.value().getStruct("after").get(field), key.get(field));
        }
    }

    private static List<Change> of(List<Change> all, String topic) {
        return all.stream().filter(x -> x.topic().equals(topic) && x.value() != null).toList();
    }

    private static byte[] bytes(Object o) {
        assertTrue(o instanceof byte[] || o instanceof ByteBuffer, String.valueOf(o));
        if (o instanceof byte[] b) return b;
        ByteBuffer b = ((ByteBuffer) o).duplicate();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }
}
