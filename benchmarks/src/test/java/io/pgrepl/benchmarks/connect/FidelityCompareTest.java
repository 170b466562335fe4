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

    private static JsonNode envelope(String prefix, String sourceSchemaExtra, String before, String lsn, String snapshot)
            throws Exception {
        return JSON.readTree("""
                {"schema": {"type": "struct", "name": "%1$s.public.t.Envelope", "fields": [
                   {"type": "struct", "optional": true, "name": "%1$s.public.t.Value", "field": "before", "fields": [
                     {"type": "int32", "optional": false, "field": "id"},
                     {"type": "string", "optional": true, "field": "v"}]},
                   {"type": "struct", "optional": true, "name": "%1$s.public.t.Value", "field": "after", "fields": [
                     {"type": "int32", "optional": false, "field": "id"},
                     {"type": "string", "optional": true, "field": "v"}]},
                   {"type": "struct", "optional": false, "name": "io.debezium.connector.postgresql.Source", "field": "source",
                    "fields": [{"type": "string", "optional": false, "field": "name"},
                               {"type": "int64", "optional": true, "field": "lsn"}%2$s]}]},
                 "payload": {"op": "u", "before": %3$s, "after": {"id": 1, "v": "y"},
                   "source": {"name": "%1$s", "lsn": %4$s%5$s}, "ts_ms": %6$d}}"""
                .formatted(prefix, sourceSchemaExtra, before, lsn, snapshot, System.nanoTime()));
    }

    private static JsonNode key(String prefix, String idType, int id) throws Exception {
        return JSON.readTree("""
                {"schema": {"type": "struct", "optional": false, "name": "%s.public.t.Key", "fields": [
                   {"type": "%s", "optional": false, "field": "id"}]}, "payload": {"id": %d}}""".formatted(prefix, idType, id));
    }

    @Test
    void prefixesAndClocksAreNotDifferences() throws Exception {
        List<Fidelity.Rec> dbz = List.of(new Fidelity.Rec(key("a", "int32", 1),
                envelope("a", "", "{\"id\": 1, \"v\": \"x\"}", "10", "")));
        List<Fidelity.Rec> pgr = List.of(new Fidelity.Rec(key("b", "int32", 1),
                envelope("b", "", "{\"id\": 1, \"v\": \"x\"}", "10", "")));
        List<String> diffs = new ArrayList<>();
        Fidelity.compareAll("t", dbz, pgr, diffs);
        assertEquals(List.of(), diffs);
    }

    @Test
    void beforeSourceAndKeyDifferencesAreListed() throws Exception {
        List<Fidelity.Rec> dbz = List.of(
                new Fidelity.Rec(key("a", "int32", 1), envelope("a", ", {\"type\": \"string\", \"optional\": true, \"field\": \"origin\"}",
                        "{\"id\": 1, \"v\": \"x\"}", "10", ", \"origin\": null")),
                new Fidelity.Rec(key("a", "int32", 2), envelope("a", "", "null", "11", "")));
        List<Fidelity.Rec> pgr = List.of(
                new Fidelity.Rec(key("b", "int64", 1), envelope("b", "", "{\"id\": 1, \"v\": \"z\"}", "12", "")),
                new Fidelity.Rec(key("b", "int64", 3), envelope("b", "", "{\"id\": 2, \"v\": null}", "13", "")));
        List<String> diffs = new ArrayList<>();
        Fidelity.compareAll("t", dbz, pgr, diffs);
        assertEquals(List.of(
                "t record 0 (op u, id 1) before v: debezium \"x\", pgrepl \"z\"",
                "t source schema origin: only in debezium",
                "t envelope schema source: debezium {\"type\":\"struct\",\"optional\":false,\"name\":\"io.debezium.connector.postgresql.Source\","
                        + "\"fields\":\"(3 fields, compared apart)\"}, pgrepl {\"type\":\"struct\",\"optional\":false,"
                        + "\"name\":\"io.debezium.connector.postgresql.Source\",\"fields\":\"(2 fields, compared apart)\"}",
                "t record 1 (op u, id 1): before is null on one side only",
                "t source.lsn: differs in 2 of 2 records (first: record 0 op u: debezium 10, pgrepl 12)",
                "t key schema id: debezium {\"type\":\"int32\",\"optional\":false}, pgrepl {\"type\":\"int64\",\"optional\":false}",
                "t record 1 key: debezium {\"id\":2}, pgrepl {\"id\":3}"), diffs);
    }
}
