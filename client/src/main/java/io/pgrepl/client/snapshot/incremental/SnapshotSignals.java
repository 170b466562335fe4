package io.pgrepl.client.snapshot.incremental;

import io.pgrepl.client.internal.JsonReader;
import io.pgrepl.client.internal.JsonWriter;
import io.pgrepl.client.replication.Identifiers;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads snapshot signals: the content of a {@code pg_logical_emit_message(true, 'pgrepl', json)}
 * message (also the shape of a Debezium Kafka signal record's value), or a row of a Debezium
 * signal table (its {@code type} and {@code data} columns), with Debezium's payloads accepted
 * verbatim: {@code data-collections}, {@code type} (default {@code incremental}, any case),
 * {@code additional-conditions} or the older single {@code additional-condition} (which applies to
 * every data collection), {@code surrogate-key}. Fields of {@code data} pgrepl does not know are
 * ignored, as Debezium does; the message envelope is strict. Every error names the field.
 */
public final class SnapshotSignals {
    /** The logical message prefix pgrepl listens to. */
    public static final String MESSAGE_PREFIX = "pgrepl";
    /** The longest signal text read. */
    static final int MAX_LENGTH = 1 << 20;
    private static final Set<String> ENVELOPE = Set.of("type", "data", "id", "slot");

    private SnapshotSignals() {}

    /**
     * Parses a logical message's content: {@code {"type":"execute-snapshot","data":{...},"slot":"s","id":"..."}}.
     *
     * @param json the message content
     * @return the signal
     * @throws MalformedSignalException naming what is wrong and where
     */
    public static SnapshotSignal parseMessage(String json) {
        if (json == null) throw new MalformedSignalException("signal message is empty");
        Map<String, Object> envelope = object(read(json, "signal message"), "signal message");
        for (String key : envelope.keySet()) {
            if (!ENVELOPE.contains(key)) {
                throw new MalformedSignalException("signal message has an unknown field \"" + key + "\" (known: type, data, id, slot)");
            }
        }
        String type = string(envelope, "type", "signal message");
        if (type == null) throw new MalformedSignalException("signal message has no \"type\" (execute-snapshot, stop-snapshot, pause-snapshot or resume-snapshot)");
        Object data = envelope.get("data");
        if (data != null && !(data instanceof Map)) throw new MalformedSignalException("\"data\" must be an object, got " + kind(data));
        String slot = string(envelope, "slot", "signal message");
        if (slot != null) {
            try {
                Identifiers.requireSlotName(slot);
            } catch (IllegalArgumentException e) {
                throw new MalformedSignalException("\"slot\": " + e.getMessage());
            }
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> d = data == null ? Map.of() : (Map<String, Object>) data;
        return signal(string(envelope, "id", "signal message"), type, d, slot);
    }

    /**
     * Parses a signal table row as Debezium writes it.
     *
     * @param type     the {@code type} column, e.g. {@code execute-snapshot}
     * @param dataJson the {@code data} column (may be null or empty for pause/resume)
     * @return the signal
     * @throws MalformedSignalException naming what is wrong and where
     */
    public static SnapshotSignal parse(String type, String dataJson) {
        return parse(null, type, dataJson);
    }

    /**
     * Parses a signal table row with its id column.
     *
     * @param id       the {@code id} column, or null
     * @param type     the {@code type} column
     * @param dataJson the {@code data} column
     * @return the signal
     * @throws MalformedSignalException naming what is wrong and where
     */
    public static SnapshotSignal parse(String id, String type, String dataJson) {
        if (type == null || type.isBlank()) throw new MalformedSignalException("signal has no type");
        Map<String, Object> data = dataJson == null || dataJson.isBlank() ? Map.of() : object(read(dataJson, "data"), "data");
        return signal(id, type.trim(), data, null);
    }

    private static SnapshotSignal signal(String id, String typeName, Map<String, Object> data, String slot) {
        SnapshotSignal.Type type = null;
        for (SnapshotSignal.Type t : SnapshotSignal.Type.values()) {
            if (t.signalName().equals(typeName)) type = t;
        }
        if (type == null) {
            throw new MalformedSignalException("unknown signal type \"" + typeName
                    + "\" (known: execute-snapshot, stop-snapshot, pause-snapshot, resume-snapshot)");
        }
        if (type == SnapshotSignal.Type.PAUSE || type == SnapshotSignal.Type.RESUME) {
            // Debezium pauses and resumes the whole incremental snapshot and ignores the rest of data.
            return new SnapshotSignal(type, List.of(), Map.of(), "incremental", id, slot, null);
        }
        String snapshotType = string(data, "type", "data");
        snapshotType = snapshotType == null ? "incremental" : snapshotType.trim().toLowerCase(Locale.ROOT);
        if (snapshotType.equals("blocking")) {
            throw new MalformedSignalException("data.type \"blocking\" is not supported: pgrepl runs incremental snapshots"
                    + " only, which never stop the stream; send \"incremental\" (or leave the type out)");
        }
        if (!snapshotType.equals("incremental")) {
            throw new MalformedSignalException("data.type \"" + snapshotType + "\" is unknown: the only snapshot type is \"incremental\"");
        }
        List<String> collections = dataCollections(data);
        if (type == SnapshotSignal.Type.STOP) {
            return new SnapshotSignal(type, collections, Map.of(), snapshotType, id, slot, null);
        }
        if (collections.isEmpty()) {
            throw new MalformedSignalException("execute-snapshot needs data.data-collections: a non-empty array of"
                    + " \"schema.table\" names (or regular expressions matching them)");
        }
        String surrogate = string(data, "surrogate-key", "data");
        return new SnapshotSignal(type, collections, conditions(data), snapshotType, id, slot,
                surrogate == null || surrogate.isBlank() ? null : surrogate.trim());
    }

    private static List<String> dataCollections(Map<String, Object> data) {
        Object v = data.get("data-collections");
        if (v == null) return List.of();
        if (!(v instanceof List<?> list)) throw new MalformedSignalException("data.data-collections must be an array, got " + kind(v));
        List<String> out = new ArrayList<>(list.size());
        for (int i = 0; i < list.size(); i++) {
            if (!(list.get(i) instanceof String s) || s.isBlank()) {
                throw new MalformedSignalException("data.data-collections[" + i + "] must be a non-empty string, got " + kind(list.get(i)));
            }
            out.add(s.trim());
        }
        return out;
    }

    private static Map<String, String> conditions(Map<String, Object> data) {
        Map<String, String> out = new LinkedHashMap<>();
        String old = string(data, "additional-condition", "data");
        Object list = data.get("additional-conditions");
        if (old != null && list != null) {
            throw new MalformedSignalException("data has both additional-condition and additional-conditions: give one");
        }
        if (old != null) {
            if (!old.isBlank()) out.put(".*", checked(old, "data.additional-condition"));
            return out;
        }
        if (list == null) return out;
        if (!(list instanceof List<?> items)) {
            throw new MalformedSignalException("data.additional-conditions must be an array, got " + kind(list));
        }
        for (int i = 0; i < items.size(); i++) {
            String where = "data.additional-conditions[" + i + "]";
            Map<String, Object> item = object(items.get(i), where);
            String collection = string(item, "data-collection", where);
            if (collection == null || collection.isBlank()) {
                throw new MalformedSignalException(where + " needs a \"data-collection\"");
            }
            String filter = string(item, "filter", where);
            if (filter == null) throw new MalformedSignalException(where + " needs a \"filter\"");
            if (filter.isBlank()) continue;
            if (out.put(collection.trim(), checked(filter, where + ".filter")) != null) {
                throw new MalformedSignalException(where + " is a second condition for \"" + collection.trim() + "\"");
            }
        }
        return out;
    }

    private static String checked(String condition, String where) {
        try {
            return SqlCondition.requireSingleExpression(condition);
        } catch (IllegalArgumentException e) {
            throw new MalformedSignalException(where + ": " + e.getMessage());
        }
    }

    private static Object read(String json, String what) {
        if (json.length() > MAX_LENGTH) {
            throw new MalformedSignalException(what + " is longer than " + MAX_LENGTH + " characters");
        }
        try {
            return new JsonReader(MAX_LENGTH, 16).read(json);
        } catch (JsonReader.JsonException e) {
            throw new MalformedSignalException(what + " is not valid JSON: " + e.getMessage(), e);
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> object(Object v, String what) {
        if (!(v instanceof Map)) throw new MalformedSignalException(what + " must be a JSON object, got " + kind(v));
        return (Map<String, Object>) v;
    }

    private static String string(Map<String, Object> m, String key, String where) {
        Object v = m.get(key);
        if (v == null || v instanceof String) return (String) v;
        throw new MalformedSignalException(where + "." + key + " must be a string, got " + kind(v));
    }

    private static String kind(Object v) {
        if (v == null) return "null";
        if (v instanceof String) return "a string";
        if (v instanceof Map) return "an object";
        if (v instanceof List) return "an array";
        if (v instanceof Boolean) return "a boolean";
        return "a number";
    }

    /**
     * Writes a signal as the JSON {@link #parseMessage} reads (what the CLI sends).
     *
     * @param signal the signal
     * @return the message content
     */
    public static String toMessageJson(SnapshotSignal signal) {
        Map<String, Object> data = new LinkedHashMap<>();
        if (!signal.dataCollections().isEmpty()) data.put("data-collections", signal.dataCollections());
        data.put("type", signal.snapshotType());
        if (!signal.additionalConditions().isEmpty()) {
            List<Object> conditions = new ArrayList<>();
            signal.additionalConditions().forEach((k, v) -> {
                Map<String, Object> c = new LinkedHashMap<>();
                c.put("data-collection", k);
                c.put("filter", v);
                conditions.add(c);
            });
            data.put("additional-conditions", conditions);
        }
        if (signal.surrogateKey() != null) data.put("surrogate-key", signal.surrogateKey());
        Map<String, Object> envelope = new LinkedHashMap<>();
        envelope.put("type", signal.type().signalName());
        if (signal.id() != null) envelope.put("id", signal.id());
        if (signal.slot() != null) envelope.put("slot", signal.slot());
        envelope.put("data", data);
        return JsonWriter.write(envelope);
    }

    /**
     * Writes a signal's {@code data} as a Debezium signal table's data column holds it.
     *
     * @param signal the signal
     * @return the data column's JSON
     */
    public static String toDataJson(SnapshotSignal signal) {
        String message = toMessageJson(signal);
        @SuppressWarnings("unchecked")
        Map<String, Object> envelope = (Map<String, Object>) new JsonReader(MAX_LENGTH * 2, 16).read(message);
        return JsonWriter.write(envelope.get("data"));
    }
}
