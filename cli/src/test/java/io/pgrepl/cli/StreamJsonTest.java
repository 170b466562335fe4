package io.pgrepl.cli;

import static io.pgrepl.cli.Cli.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pgrepl.testkit.PgServer;
import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * {@code pgrepl stream --format json} (the default) on real servers: typed values (18 and 10), the
 * same JSON from {@code --binary}, streamed transactions with an aborted subtransaction, prepared
 * transactions, logical messages. Expected values are written out from the SQL the test runs.
 */
class StreamJsonTest {

    private static final String TABLE = "CREATE TYPE mood AS ENUM ('ok', 'sad');"
            + " CREATE TABLE tv (id int PRIMARY KEY, i2 smallint, i8 bigint, f4 real, f8 double precision, n numeric,"
            + " b bool, j json, jb jsonb, ai int[], at text[], ts timestamptz, tsl timestamp, d date, by bytea, u uuid,"
            + " t text, iv interval, addr inet, fnan double precision, finf double precision, m mood);"
            + " CREATE PUBLICATION tv_pub FOR TABLE tv";
    private static final String INSERT = "INSERT INTO tv VALUES (1, -32768, 9007199254740993, 1.5, 0.1,"
            + " 12345678901234567890.000000000001, true, '{\"a\":\n [1, 2]}', '{\"b\": {\"c\": null}}', '{1,NULL,3}',"
            + " '{\"x y\",\"q\\\"z\"}', '2024-02-29 12:34:56.123456+00', '2024-02-29 12:34:56', '2024-02-29',"
            + " '\\xdeadbeef', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', E'line1\\nline2 \"quoted\" \\u00e9 \\u2028',"
            + " '1 day 02:00:00', '192.168.0.1/24', 'NaN', '-Infinity', 'sad')";

    private static JsonNode exact(JsonNode n) {
        return n.deepCopy();
    }

    @ParameterizedTest(name = "PG {0}")
    @ValueSource(ints = {18, 10})
    void typedValuesWholeTransactions(int version) throws Exception {
        try (PgServer server = PgServer.builder().version(version).start()) {
            server.sql("postgres", TABLE);
            server.sql("postgres", "SELECT pg_create_logical_replication_slot('tv', 'pgoutput')");
            if (version >= 14) server.sql("postgres", "SELECT pg_create_logical_replication_slot('tv_bin', 'pgoutput')");
            server.sql("postgres", INSERT);
            server.sql("postgres", "UPDATE tv SET t = 'x' WHERE id = 1");
            server.sql("postgres", "DELETE FROM tv WHERE id = 1");
            server.sql("postgres", "TRUNCATE tv");
            Cli.Result r = run("stream", Cli.url(server), "-S", "tv", "-P", "tv_pub", "--idle-exit", "1", "--column-types", "change");
            assertEquals(0, r.rc(), r.err());
            List<String> expected = new java.util.ArrayList<>(List.of("begin", "insert", "commit", "begin", "update",
                    "commit", "begin", "delete", "commit"));
            if (version >= 11) expected.addAll(List.of("begin", "truncate", "commit")); // TRUNCATE is decoded from 11
            assertEquals(expected, r.types(), r.out());
            List<JsonNode> lines = r.lines();
            JsonNode begin = lines.get(0);
            assertTrue(begin.get("xid").isIntegralNumber());
            assertEquals(begin.get("end_lsn"), lines.get(2).get("end_lsn"));
            assertTrue(begin.get("commit_time").asText().matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z"));
            JsonNode ins = lines.get(1);
            assertEquals("public", ins.get("schema").asText());
            assertEquals("tv", ins.get("table").asText());
            JsonNode types = ins.get("column_types");
            assertEquals("int4", types.get("id").asText());
            assertEquals("int2", types.get("i2").asText());
            assertEquals("numeric", types.get("n").asText());
            assertEquals("int4[]", types.get("ai").asText());
            assertEquals("text[]", types.get("at").asText());
            assertEquals("timestamptz", types.get("ts").asText());
            assertEquals("inet", types.get("addr").asText());
            assertEquals("public.mood", types.get("m").asText(), "from the Type message");
            assertEquals(22, types.size());
            JsonNode v = exact(ins.get("new"));
            assertEquals(1, v.get("id").intValue());
            assertTrue(v.get("i2").isIntegralNumber());
            assertEquals(-32768, v.get("i2").intValue());
            assertEquals(9007199254740993L, v.get("i8").longValue());
            // floats: the same double (before 12 the server prints 17 significant digits: 0.100000000000000006)
            assertEquals(1.5, v.get("f4").doubleValue());
            assertEquals(0.1, v.get("f8").doubleValue());
            assertTrue(v.get("f8").isNumber());
            assertEquals(new BigDecimal("12345678901234567890.000000000001"), v.get("n").decimalValue());
            assertTrue(v.get("b").isBoolean() && v.get("b").booleanValue());
            assertEquals(Cli.parse("{\"a\":[1,2]}"), v.get("j"), "json embedded");
            assertTrue(v.get("jb").get("b").get("c").isNull(), "jsonb embedded");
            assertEquals(Cli.parse("[1,null,3]"), v.get("ai"));
            assertEquals(Cli.parse("[\"x y\",\"q\\\"z\"]"), v.get("at"));
            assertEquals("2024-02-29T12:34:56.123456Z", v.get("ts").asText());
            assertEquals("2024-02-29T12:34:56", v.get("tsl").asText());
            assertEquals("2024-02-29", v.get("d").asText());
            assertEquals("3q2+7w==", v.get("by").asText());
            assertEquals("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", v.get("u").asText());
            assertEquals("line1\nline2 \"quoted\" \u00e9 \u2028", v.get("t").asText());
            assertEquals("1 day 02:00:00", v.get("iv").asText());
            assertEquals("192.168.0.1/24", v.get("addr").asText());
            assertEquals("NaN", v.get("fnan").asText());
            assertTrue(v.get("fnan").isTextual());
            assertEquals("-Infinity", v.get("finf").asText());
            assertEquals("sad", v.get("m").asText());
            assertEquals("x", lines.get(4).get("new").get("t").asText());
            assertEquals(Cli.parse("{\"id\":1}"), lines.get(7).get("key"));
            if (version >= 11) truncateLine(lines.get(10));


            if (version >= 14) {
                Cli.Result bin = run("stream", Cli.url(server), "-S", "tv_bin", "-P", "tv_pub", "--binary", "--idle-exit", "1");
                assertEquals(0, bin.rc(), bin.err());
                assertEquals(r.types(), bin.types());
                ObjectNode text = (ObjectNode) exact(ins.get("new"));
                ObjectNode binary = (ObjectNode) exact(bin.lines().get(1).get("new"));
                // Types outside the built-in catalogue have no text in binary mode: base64 of their bytes.
                assertEquals("c2Fk", binary.remove("m").asText(), "the enum's send format is its label");
                text.remove("m");
                assertEquals("AhgABMCoAAE=", binary.remove("addr").asText(), "inet's send format, base64");
                text.remove("addr");
                assertEquals(text, binary, "--binary decodes to the same JSON");
            }
        }
    }

    private static void truncateLine(JsonNode line) {
        JsonNode truncated = line.get("relations");
        assertEquals(1, truncated.size());
        assertEquals("public", truncated.get(0).get("schema").asText());
        assertEquals("tv", truncated.get(0).get("table").asText());
        assertTrue(truncated.get(0).get("relation_id").isIntegralNumber());
        assertFalse(line.get("cascade").asBoolean());
    }

    @Test
    void streamedPreparedAndMessages() throws Exception {
        try (PgServer server = PgServer.builder().version(18).setting("logical_decoding_work_mem", "64kB").start()) {
            server.sql("postgres", "CREATE TABLE big (id int PRIMARY KEY, pad text); CREATE PUBLICATION big_pub FOR TABLE big");
            Cli.Result create = run("stream", Cli.url(server), "-S", "big", "-P", "big_pub", "--create-slot", "--two-phase",
                    "--idle-exit", "1");
            assertEquals(0, create.rc(), create.err());
            // streamed (~200 kB per part), with a rolled-back savepoint in the middle
            server.sql("postgres", "BEGIN; INSERT INTO big SELECT g, repeat('x', 200) FROM generate_series(1, 1000) g;"
                    + " SAVEPOINT s; INSERT INTO big SELECT g, repeat('y', 200) FROM generate_series(10001, 11000) g;"
                    + " ROLLBACK TO SAVEPOINT s; INSERT INTO big VALUES (99999, 'last'); COMMIT");
            server.sql("postgres", "BEGIN; INSERT INTO big VALUES (-1, 'g1'); PREPARE TRANSACTION 'g1'");
            server.sql("postgres", "BEGIN; INSERT INTO big VALUES (-2, 'g2'); PREPARE TRANSACTION 'g2'");
            server.sql("postgres", "SELECT pg_logical_emit_message(false, 'pfx', 'hello')");
            server.sql("postgres", "ROLLBACK PREPARED 'g2'");
            server.sql("postgres", "COMMIT PREPARED 'g1'");
            server.sql("postgres", "BEGIN; SELECT pg_logical_emit_message(true, 'pfx', '\\xff00'::bytea); COMMIT");
            Cli.Result r = run("stream", Cli.url(server), "-S", "big", "-P", "big_pub", "--streaming", "on", "--two-phase",
                    "--messages", "--idle-exit", "2");
            assertEquals(0, r.rc(), r.err());
            List<JsonNode> lines = r.lines();
            List<String> types = r.types();
            // the streamed transaction: whole, without the rolled-back subtransaction
            assertEquals("begin", types.get(0));
            assertTrue(lines.get(0).get("streamed").asBoolean(), lines.get(0).toString());
            assertEquals(1001, types.subList(1, 1002).stream().filter("insert"::equals).count());
            assertEquals("commit", types.get(1002));
            for (JsonNode n : lines.subList(1, 1002)) {
                int id = n.get("new").get("id").intValue();
                assertTrue(id <= 1000 || id == 99999, "aborted subtransaction's row " + id);
            }
            // the non-transactional message at once; g1 at COMMIT PREPARED; g2 never; the binary message as base64
            List<JsonNode> rest = lines.subList(1003, lines.size());
            assertEquals(List.of("message", "begin", "insert", "commit", "begin", "message", "commit"),
                    rest.stream().map(n -> n.get("type").asText()).toList(), r.out());
            assertFalse(rest.get(0).get("transactional").asBoolean());
            assertEquals("hello", rest.get(0).get("content").asText());
            assertEquals("pfx", rest.get(0).get("prefix").asText());
            assertEquals("g1", rest.get(1).get("gid").asText());
            assertEquals(-1, rest.get(2).get("new").get("id").intValue());
            assertTrue(rest.get(5).get("transactional").asBoolean());
            assertEquals("/wA=", rest.get(5).get("content_base64").asText());
            assertTrue(rest.get(5).get("content") == null);
        }
    }
}
