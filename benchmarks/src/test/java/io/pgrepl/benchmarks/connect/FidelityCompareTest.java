package io.pgrepl.benchmarks.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The fidelity comparison itself, on hand-written envelopes: it reports what differs and nothing else. */
class FidelityCompareTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static JsonNode record(String op, String idSchema, String after) throws Exception {
        return JSON.readTree("""
                {"schema": {"type": "struct", "fields": [
                   {"type": "struct", "optional": true, "field": "after", "fields": [
                     {"type": "int32", "optional": %s, "field": "id"},
                     {"type": "string", "optional": true, "field": "v"}]}]},
                 "payload": {"op": "%s", "after": %s}}""".formatted(idSchema, op, after));
    }

    @Test
    void identicalTopicsHaveNoDifference() throws Exception {
        List<JsonNode> a = List.of(record("c", "false", "{\"id\": 1, \"v\": \"x\"}"), JSON.nullNode());
        List<JsonNode> b = List.of(record("c", "false", "{\"id\": 1, \"v\": \"x\"}"), JSON.nullNode());
        List<String> diffs = new ArrayList<>();
        Fidelity.compare("t", a, b, diffs);
        assertEquals(List.of(), diffs);
    }

    @Test
    void everyKindOfDifferenceIsListed() throws Exception {
        List<JsonNode> dbz = List.of(record("c", "false", "{\"id\": 1, \"v\": \"x\"}"),
                record("u", "false", "{\"id\": 1, \"v\": \"y\"}"), JSON.nullNode());
        List<JsonNode> pgr = List.of(record("c", "true", "{\"id\": 1, \"v\": \"x \"}"),
                record("c", "true", "{\"id\": 1, \"v\": \"y\"}"), record("d", "true", "null"));
        List<String> diffs = new ArrayList<>();
        Fidelity.compare("t", dbz, pgr, diffs);
        assertEquals(List.of(
                "t record 0 (op c, id 1) value v: debezium \"x\", pgrepl \"x \"",
                "t schema id: debezium {\"type\":\"int32\",\"optional\":false}, pgrepl {\"type\":\"int32\",\"optional\":true}",
                "t record 1: op u vs c",
                "t record 2: tombstone on one side only"), diffs);
    }
}
