package io.pgrepl.client.snapshot.incremental;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pgrepl.client.snapshot.incremental.SnapshotSignal.Type;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SnapshotSignalsTest {

    @Test
    void debeziumExecutePayloadVerbatim() {
        SnapshotSignal s = SnapshotSignals.parse("ad-hoc-1", "execute-snapshot",
                "{\"data-collections\": [\"schema1.table1\", \" schema1.table2 \"], \"type\": \"incremental\","
                + " \"additional-conditions\": [{\"data-collection\": \"schema1.table1\", \"filter\": \"color='blue'\"},"
                + " {\"data-collection\": \"schema1.table2\", \"filter\": \"brand='MyBrand'\"}]}");
        assertEquals(Type.EXECUTE, s.type());
        assertEquals("ad-hoc-1", s.id());
        assertEquals(List.of("schema1.table1", "schema1.table2"), s.dataCollections());
        Map<String, String> conditions = new LinkedHashMap<>();
        conditions.put("schema1.table1", "color='blue'");
        conditions.put("schema1.table2", "brand='MyBrand'");
        assertEquals(conditions, s.additionalConditions());
        assertEquals("incremental", s.snapshotType());
        assertNull(s.slot());
        assertNull(s.surrogateKey());
        assertEquals("color='blue'", s.conditionFor("schema1.table1"));
        assertNull(s.conditionFor("schema1.table3"));
    }

    @Test
    void typeDefaultsToIncrementalInAnyCaseAndOlderFormsWork() {
        SnapshotSignal s = SnapshotSignals.parse("execute-snapshot",
                "{\"data-collections\": [\"public.orders\"], \"additional-condition\": \"id > 10\", \"surrogate-key\": \"code\"}");
        assertEquals("incremental", s.snapshotType());
        assertEquals(Map.of(".*", "id > 10"), s.additionalConditions());
        assertEquals("id > 10", s.conditionFor("public.orders"), "the older single condition applies to every collection");
        assertEquals("code", s.surrogateKey());
        assertEquals("incremental", SnapshotSignals.parse("execute-snapshot",
                "{\"data-collections\": [\"a.b\"], \"type\": \"INCREMENTAL\"}").snapshotType());
        // Unknown data fields are ignored, as Debezium does; blank conditions are none.
        SnapshotSignal blank = SnapshotSignals.parse("execute-snapshot",
                "{\"data-collections\": [\"a.b\"], \"additional-condition\": \" \", \"future-field\": [1]}");
        assertEquals(Map.of(), blank.additionalConditions());
    }

    @Test
    void dataCollectionsAreAlsoRegularExpressions() {
        SnapshotSignal s = SnapshotSignals.parse("execute-snapshot", "{\"data-collections\": [\"inventory\\\\.orders_.*\", \"a(b\"],"
                + " \"additional-conditions\": [{\"data-collection\": \"INVENTORY\\\\.ORDERS_2024\", \"filter\": \"x = 1\"}]}");
        assertTrue(s.matches("inventory.orders_2024"));
        assertFalse(s.matches("inventory.orders"));
        assertFalse(s.matches("inventory.orders_2024x.y".substring(0, 9)));
        assertTrue(s.matches("a(b"), "an invalid expression still names itself");
        assertFalse(s.matches("ab"));
        assertEquals("x = 1", s.conditionFor("inventory.orders_2024"), "condition collections match without case, as Debezium's");
        // An expression that backtracks without end runs out of its budget and matches nothing.
        SnapshotSignal evil = SnapshotSignals.parse("stop-snapshot", "{\"data-collections\": [\"(.*a){20}b\"]}");
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> assertFalse(evil.matches("a".repeat(40))));
    }

    @Test
    void stopPauseResumeShapes() {
        SnapshotSignal all = SnapshotSignals.parse("stop-snapshot", "{\"type\": \"incremental\"}");
        assertEquals(Type.STOP, all.type());
        assertEquals(List.of(), all.dataCollections());
        assertTrue(all.matches("any.table"), "a stop without collections stops every table");
        SnapshotSignal some = SnapshotSignals.parse("stop-snapshot", "{\"data-collections\": [\"db1.table1\"], \"type\": \"incremental\"}");
        assertEquals(List.of("db1.table1"), some.dataCollections());
        assertFalse(some.matches("db1.table2"));
        for (String data : new String[] {null, "", "{}", "{\"type\": \"incremental\"}", "{\"anything\": 1}"}) {
            assertEquals(Type.PAUSE, SnapshotSignals.parse("pause-snapshot", data).type());
            assertEquals(Type.RESUME, SnapshotSignals.parse(" resume-snapshot ", data).type());
        }
    }

    @Test
    void logicalMessageEnvelope() {
        SnapshotSignal s = SnapshotSignals.parseMessage("{\"type\":\"execute-snapshot\",\"id\":\"r1\",\"slot\":\"my_slot\","
                + "\"data\":{\"data-collections\":[\"public.t\"],\"type\":\"incremental\"}}");
        assertEquals(Type.EXECUTE, s.type());
        assertEquals("r1", s.id());
        assertEquals("my_slot", s.slot());
        assertEquals(List.of("public.t"), s.dataCollections());
        // Debezium's Kafka signal record value has the same shape.
        assertEquals(Type.PAUSE, SnapshotSignals.parseMessage("{\"type\":\"pause-snapshot\",\"data\":{}}").type());
        assertEquals(Type.RESUME, SnapshotSignals.parseMessage("{\"type\":\"resume-snapshot\"}").type());
    }

    @Test
    void writtenSignalsReadBackAndAreRealJson() throws Exception {
        Map<String, String> conditions = new LinkedHashMap<>();
        conditions.put("public.t", "name = 'it''s \"x\"\\n'");
        SnapshotSignal s = new SnapshotSignal(Type.EXECUTE, List.of("public.t", "s.u"), conditions, "incremental", "id-1", "slot_1", "k");
        String json = SnapshotSignals.toMessageJson(s);
        assertEquals(s, SnapshotSignals.parseMessage(json));
        JsonNode n = new ObjectMapper().readTree(json);
        assertEquals("execute-snapshot", n.get("type").asText());
        assertEquals("slot_1", n.get("slot").asText());
        assertEquals("name = 'it''s \"x\"\\n'", n.get("data").get("additional-conditions").get(0).get("filter").asText());
        String data = SnapshotSignals.toDataJson(s);
        assertEquals("public.t", new ObjectMapper().readTree(data).get("data-collections").get(0).asText());
        assertEquals(new SnapshotSignal(Type.EXECUTE, s.dataCollections(), conditions, "incremental", "id-1", null, "k"),
                SnapshotSignals.parse("id-1", "execute-snapshot", data));
        SnapshotSignal stop = new SnapshotSignal(Type.STOP, List.of(), Map.of(), "incremental", null, null, null);
        assertEquals(stop, SnapshotSignals.parseMessage(SnapshotSignals.toMessageJson(stop)));
    }

    @Test
    void malformedSignalsSayWhatAndWhere() {
        assertEquals("data is not valid JSON: unexpected '}', expected '\"' starting a key at offset 30",
                table("execute-snapshot", "{\"data-collections\": [\"a.b\"], }"));
        assertEquals("data must be a JSON object, got an array", table("execute-snapshot", "[\"a.b\"]"));
        assertEquals("signal has no type", table(" ", "{}"));
        assertEquals("unknown signal type \"execute-snapshots\" (known: execute-snapshot, stop-snapshot, pause-snapshot,"
                + " resume-snapshot)", table("execute-snapshots", "{}"));
        assertEquals("execute-snapshot needs data.data-collections: a non-empty array of \"schema.table\" names"
                + " (or regular expressions matching them)", table("execute-snapshot", "{\"data-collections\": []}"));
        assertEquals("data.data-collections must be an array, got a string", table("execute-snapshot", "{\"data-collections\": \"a.b\"}"));
        assertEquals("data.data-collections[1] must be a non-empty string, got a number",
                table("execute-snapshot", "{\"data-collections\": [\"a.b\", 7]}"));
        assertEquals("data.data-collections[0] must be a non-empty string, got a string",
                table("execute-snapshot", "{\"data-collections\": [\" \"]}"));
        assertEquals("data.type \"blocking\" is not supported: pgrepl runs incremental snapshots only, which never stop the"
                + " stream; send \"incremental\" (or leave the type out)",
                table("execute-snapshot", "{\"data-collections\": [\"a.b\"], \"type\": \"BLOCKING\"}"));
        assertEquals("data.type \"full\" is unknown: the only snapshot type is \"incremental\"",
                table("execute-snapshot", "{\"data-collections\": [\"a.b\"], \"type\": \"full\"}"));
        assertEquals("data.type must be a string, got a boolean", table("stop-snapshot", "{\"type\": true}"));
        assertEquals("data.additional-conditions must be an array, got an object",
                table("execute-snapshot", "{\"data-collections\": [\"a.b\"], \"additional-conditions\": {}}"));
        assertEquals("data.additional-conditions[1] must be a JSON object, got a string", table("execute-snapshot",
                "{\"data-collections\": [\"a.b\"], \"additional-conditions\": [{\"data-collection\": \"a.b\", \"filter\": \"x\"}, \"y\"]}"));
        assertEquals("data.additional-conditions[0] needs a \"data-collection\"",
                table("execute-snapshot", "{\"data-collections\": [\"a.b\"], \"additional-conditions\": [{\"filter\": \"x\"}]}"));
        assertEquals("data.additional-conditions[0] needs a \"filter\"",
                table("execute-snapshot", "{\"data-collections\": [\"a.b\"], \"additional-conditions\": [{\"data-collection\": \"a.b\"}]}"));
        assertEquals("data.additional-conditions[0].filter must be a string, got a number", table("execute-snapshot",
                "{\"data-collections\": [\"a.b\"], \"additional-conditions\": [{\"data-collection\": \"a.b\", \"filter\": 1}]}"));
        assertEquals("data.additional-conditions[1] is a second condition for \"a.b\"", table("execute-snapshot",
                "{\"data-collections\": [\"a.b\"], \"additional-conditions\": [{\"data-collection\": \"a.b\", \"filter\": \"x\"},"
                + " {\"data-collection\": \"a.b\", \"filter\": \"y\"}]}"));
        assertEquals("data.additional-conditions[0].filter: additional condition has a ';' (one expression only) at offset 5",
                table("execute-snapshot", "{\"data-collections\": [\"a.b\"], \"additional-conditions\":"
                        + " [{\"data-collection\": \"a.b\", \"filter\": \"x = 1; DROP TABLE a.b\"}]}"));
        assertEquals("data.additional-condition: additional condition has a comment at offset 6",
                table("execute-snapshot", "{\"data-collections\": [\"a.b\"], \"additional-condition\": \"x = 1 -- \"}"));
        assertEquals("data has both additional-condition and additional-conditions: give one", table("execute-snapshot",
                "{\"data-collections\": [\"a.b\"], \"additional-condition\": \"x\", \"additional-conditions\": []}"));
        assertEquals("data.surrogate-key must be a string, got an array",
                table("execute-snapshot", "{\"data-collections\": [\"a.b\"], \"surrogate-key\": [\"k\"]}"));
        assertEquals("data is longer than 1048576 characters", table("execute-snapshot", "x".repeat((1 << 20) + 1)));

        assertEquals("signal message is not valid JSON: unexpected end of input, expected a value at offset 0", message(""));
        assertEquals("signal message is empty", message(null));
        assertEquals("signal message must be a JSON object, got a string", message("\"execute-snapshot\""));
        assertEquals("signal message has no \"type\" (execute-snapshot, stop-snapshot, pause-snapshot or resume-snapshot)",
                message("{\"data\": {}}"));
        assertEquals("signal message has an unknown field \"slto\" (known: type, data, id, slot)",
                message("{\"type\": \"pause-snapshot\", \"slto\": \"s\"}"));
        assertEquals("\"data\" must be an object, got a string", message("{\"type\": \"execute-snapshot\", \"data\": \"{}\"}"));
        assertEquals("signal message.slot must be a string, got a number", message("{\"type\": \"pause-snapshot\", \"slot\": 1}"));
        assertEquals("\"slot\": replication slot name \"Bad-Slot\" contains invalid character; only lower case letters, numbers"
                + " and underscore are allowed", message("{\"type\": \"pause-snapshot\", \"slot\": \"Bad-Slot\"}"));
        assertEquals("signal message is not valid JSON: duplicate key \"type\" at offset 27",
                message("{\"type\": \"pause-snapshot\", \"type\": \"resume-snapshot\"}"));
        assertEquals("signal message is not valid JSON: nesting deeper than 16 at offset 41",
                message("{\"type\": \"x\", \"data\": {\"a\":" + "[".repeat(40) + "]".repeat(40) + "}}"));
    }

    private static String table(String type, String data) {
        return assertThrows(MalformedSignalException.class, () -> SnapshotSignals.parse(type, data)).getMessage();
    }

    private static String message(String json) {
        return assertThrows(MalformedSignalException.class, () -> SnapshotSignals.parseMessage(json)).getMessage();
    }
}
