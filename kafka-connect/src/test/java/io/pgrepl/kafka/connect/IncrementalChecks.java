package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.pgrepl.client.Row;
import io.pgrepl.kafka.connect.ConnectHarness.Change;
import io.pgrepl.testkit.PgServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What the incremental snapshot tests check, from the records' JSON as Kafka holds it (parsed with
 * Jackson, not with the connector's converter): tables rebuilt in topic order, and per key the
 * order of versions. Tables are (id int PRIMARY KEY, v text, n int) where every write sets n to a
 * counter that grows with commit order, so no event of a key may carry a smaller n than one before
 * it, and nothing of a key may follow its delete.
 */
final class IncrementalChecks {
    private static final ObjectMapper JSON = new ObjectMapper();

    private IncrementalChecks() {}

    static JsonNode payload(Change c) {
        try {
            return JSON.readTree(c.rawValue()).get("payload");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** id -> "v/n" as the topic's events leave it. */
    static Map<Integer, String> rebuilt(List<Change> all, String topic) {
        Map<Integer, String> t = new TreeMap<>();
        for (Change c : all) {
            if (!c.topic().equals(topic) || c.rawValue() == null) continue;
            JsonNode p = payload(c);
            switch (p.get("op").asText()) {
                case "c", "u", "r" -> {
                    JsonNode a = p.get("after");
                    t.put(a.get("id").asInt(), a.get("v").asText(null) + "/" + a.get("n").asInt());
                }
                case "d" -> t.remove(p.get("before").get("id").asInt());
                case "t" -> t.clear();
                default -> throw new AssertionError("unexpected op " + p.get("op"));
            }
        }
        return t;
    }

    /** The topic rebuilt equals the table; a failure names at most ten differing keys. */
    static void assertRebuilt(PgServer pg, String table, List<Change> all, String topic) throws Exception {
        Map<Integer, String> want = source(pg, table);
        Map<Integer, String> got = rebuilt(all, topic);
        if (want.equals(got)) return;
        Set<Integer> keys = new java.util.TreeSet<>(want.keySet());
        keys.addAll(got.keySet());
        List<String> diff = keys.stream().filter(k -> !java.util.Objects.equals(want.get(k), got.get(k)))
                .map(k -> k + ": source " + want.get(k) + ", topic " + got.get(k)).limit(10).toList();
        throw new AssertionError(topic + " rebuilt differs from " + table + " (" + want.size() + " rows vs " + got.size() + "): " + diff);
    }

    static Map<Integer, String> source(PgServer pg, String table) throws Exception {
        Map<Integer, String> t = new TreeMap<>();
        for (Row r : EndToEndTest.query(pg, "SELECT id, v, n FROM " + table)) t.put(Integer.parseInt(r.get(0)), r.get(1) + "/" + r.get(2));
        return t;
    }

    /**
     * No read follows a later change of its key: per key, n never decreases along the topic, and
     * nothing follows a delete (ids are never reused). A truncate starts every key afresh.
     */
    static void readsNeverOvertake(List<Change> all, String topic) {
        Map<Integer, Integer> lastN = new HashMap<>();
        Set<Integer> deleted = new HashSet<>();
        int checked = 0;
        for (Change c : all) {
            if (!c.topic().equals(topic) || c.rawValue() == null) continue;
            JsonNode p = payload(c);
            String op = p.get("op").asText();
            if (op.equals("t")) {
                lastN.clear();
                deleted.clear();
                continue;
            }
            if (op.equals("d")) {
                int id = p.get("before").get("id").asInt();
                deleted.add(id);
                continue;
            }
            int id = p.get("after").get("id").asInt();
            int n = p.get("after").get("n").asInt();
            assertTrue(!deleted.contains(id), () -> topic + ": key " + id + " " + op + " after its delete (offset " + c.offset() + ")");
            Integer before = lastN.put(id, n);
            if (before != null) {
                assertTrue(n >= before, topic + ": key " + id + " went back from n=" + before + " to n=" + n + " by " + op
                        + " (offset " + c.offset() + ")");
                checked++;
            }
        }
        assertTrue(checked > 0, topic + ": some key had more than one event to compare");
    }

    /** Reads of {@code topic}: op r, before null, source.snapshot incremental; returns reads per id. */
    static Map<Integer, Integer> reads(List<Change> all, String topic) {
        Map<Integer, Integer> perKey = new HashMap<>();
        for (Change c : all) {
            if (!c.topic().equals(topic) || c.rawValue() == null) continue;
            JsonNode p = payload(c);
            if (!p.get("op").asText().equals("r")) {
                assertEquals("false", p.get("source").get("snapshot").asText(), "a change is not marked as a snapshot");
                continue;
            }
            assertTrue(p.get("before").isNull(), "a read has no before");
            assertEquals("incremental", p.get("source").get("snapshot").asText());
            perKey.merge(p.get("after").get("id").asInt(), 1, Integer::sum);
        }
        return perKey;
    }

    /** The notifications' types, in order, for {@code table} (or all when null), checking the shape. */
    static List<String> notifications(List<Change> all, String topic, String table) {
        return all.stream().filter(c -> c.topic().equals(topic)).map(IncrementalChecks::payload).filter(p -> {
            assertEquals("Incremental Snapshot", p.get("aggregate_type").asText());
            assertTrue(p.get("id").asText().length() > 0 && p.get("timestamp").asLong() > 0);
            if (table == null) return true;
            return about(p.get("additional_data"), table);
        }).map(p -> p.get("type").asText()).toList();
    }

    /**
     * Whether a notification is about {@code table}: the table in progress or scanned when it names
     * one (Debezium's data_collections lists every table of the snapshot), else one of data_collections.
     */
    static boolean about(JsonNode d, String table) {
        if (d.has("current_collection_in_progress")) return table.equals(d.get("current_collection_in_progress").asText());
        if (d.has("scanned_collection")) return table.equals(d.get("scanned_collection").asText());
        return d.has("data_collections") && List.of(d.get("data_collections").asText().split(",")).contains(table);
    }

    /** The {@code additional_data} of every {@code type} notification about {@code table}, in order. */
    static List<JsonNode> notificationData(List<Change> all, String topic, String table, String type) {
        return all.stream().filter(c -> c.topic().equals(topic)).map(IncrementalChecks::payload)
                .filter(p -> type.equals(p.get("type").asText()) && about(p.get("additional_data"), table))
                .map(p -> p.get("additional_data")).toList();
    }

    /** {@return the {@code timestamp} (ms) of the first {@code type} notification of {@code table}, or -1} */
    static long notificationTime(List<Change> all, String topic, String table, String type) {
        return all.stream().filter(c -> c.topic().equals(topic)).map(IncrementalChecks::payload).filter(p -> {
            return about(p.get("additional_data"), table) && type.equals(p.get("type").asText());
        }).mapToLong(p -> p.get("timestamp").asLong()).findFirst().orElse(-1);
    }
}
