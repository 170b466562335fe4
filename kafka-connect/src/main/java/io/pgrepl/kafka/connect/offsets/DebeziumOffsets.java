package io.pgrepl.kafka.connect.offsets;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Debezium's PostgreSQL source offsets (3.x, as its {@code PostgresOffsetContext} loads and stores
 * them), read so pgrepl can take over a Debezium connector's offsets, and written beside pgrepl's own
 * so Debezium can take them back. The source partition is the same ({@code {"server": topic.prefix}}).
 *
 * <p>What Debezium's keys mean, and what pgrepl makes of them:
 * <ul>
 *   <li>{@code lsn_commit}: the end LSN of the last transaction it processed wholly; {@code lsn_proc}
 *       and {@code lsn}: the WAL position of the last message processed (a change's own position,
 *       inside a transaction). pgrepl resumes after the transaction ending at {@code lsn_commit}
 *       ({@code lsn_proc}, then {@code lsn}, when it is absent): the changes of the next transaction
 *       that Debezium had already sent are sent again, because pgrepl's records do not carry
 *       per-change WAL positions to skip them by.</li>
 *   <li>{@code snapshot} ({@code INITIAL}, {@code BLOCKING}, {@code INCREMENTAL}, or true from 1.x)
 *       with {@code snapshot_completed}/{@code last_snapshot_record} false: a snapshot it did not
 *       finish.</li>
 *   <li>{@code incremental_snapshot_collections} (a JSON list of {@code incremental_snapshot_collections_id},
 *       {@code _additional_condition}, {@code _surrogate_key}), {@code incremental_snapshot_primary_key}
 *       and {@code _maximum_key} (Java-serialized keys): incremental snapshots in progress.</li>
 * </ul>
 *
 * <p>What pgrepl writes for Debezium: {@code lsn} and {@code lsn_commit} both set to the last
 * transaction it covers wholly (never {@code lsn_proc}: with it Debezium searches the stream for a
 * change position that pgrepl cannot name; without it, it streams from {@code lsn}, where the
 * server skips every transaction that committed before it), {@code txId} and {@code ts_usec} as
 * Debezium stores them, Debezium's unfinished-initial-snapshot keys on an interrupted copy's reads,
 * and, while incremental snapshots run, {@code incremental_snapshot_collections} listing the tables
 * still to read, without keys: Debezium then reads each of them again from its start.
 */
public final class DebeziumOffsets {
    public static final String LSN = "lsn";
    public static final String LSN_COMMIT = "lsn_commit";
    public static final String LSN_PROC = "lsn_proc";
    public static final String TX_ID = "txId";
    public static final String TS_USEC = "ts_usec";
    public static final String SNAPSHOT = "snapshot";
    public static final String SNAPSHOT_COMPLETED = "snapshot_completed";
    public static final String LAST_SNAPSHOT_RECORD = "last_snapshot_record";
    public static final String INCREMENTAL_COLLECTIONS = "incremental_snapshot_collections";
    public static final String INCREMENTAL_PRIMARY_KEY = "incremental_snapshot_primary_key";
    public static final String INCREMENTAL_MAXIMUM_KEY = "incremental_snapshot_maximum_key";
    private static final String COLLECTION_ID = INCREMENTAL_COLLECTIONS + "_id";
    private static final String COLLECTION_CONDITION = INCREMENTAL_COLLECTIONS + "_additional_condition";
    private static final String COLLECTION_SURROGATE = INCREMENTAL_COLLECTIONS + "_surrogate_key";

    /** One table of an incremental snapshot: Debezium's data collection. */
    public record Collection(String id, String condition, String surrogateKey) {}

    /** The last pgrepl state turned into Debezium's collections (offsets of one state come in runs). */
    private record Cached(String state, String json) {}

    private static volatile Cached cached = new Cached(null, null);

    private DebeziumOffsets() {}

    /** Debezium's keys for a position covering every transaction up to the one ending at {@code commit} (0: none known). */
    public static void putCommit(Map<String, Object> m, long commit, long xid, long commitMicros) {
        if (commit != 0) {
            m.put(LSN, commit);
            m.put(LSN_COMMIT, commit);
        }
        if (xid != 0) m.put(TX_ID, xid);
        if (commitMicros != 0) m.put(TS_USEC, commitMicros);
    }

    /** Debezium's keys of a read of an initial snapshot that is not complete. */
    public static void putSnapshotUnfinished(Map<String, Object> m) {
        m.put(SNAPSHOT, "INITIAL");
        m.put(SNAPSHOT_COMPLETED, false);
        m.put(LAST_SNAPSHOT_RECORD, false);
    }

    /** Debezium's incremental keys for the tables pgrepl's {@code state} has still to read (nothing when none). */
    public static void putIncremental(Map<String, Object> m, String state) {
        Cached c = cached;
        if (c.state() != state) {
            c = new Cached(state, collectionsJson(tablesOf(state)));
            cached = c;
        }
        if (c.json() != null) m.put(INCREMENTAL_COLLECTIONS, c.json());
    }

    /**
     * The tables of a pgrepl incremental state (running first, then queued), from its {@code t}
     * lines: {@code t NAME CONDITION SURROGATE}, URL-encoded, {@code -} for none.
     */
    public static List<Collection> tablesOf(String state) {
        List<Collection> out = new ArrayList<>();
        if (state == null) return out;
        for (String line : SignalOffsets.engineState(state).split("\n")) {
            String[] f = line.split(" ", -1);
            if (f.length == 4 && f[0].equals("t")) out.add(new Collection(unfield(f[1]), unfield(f[2]), unfield(f[3])));
        }
        return out;
    }

    private static String unfield(String s) {
        return s.equals("-") ? null : URLDecoder.decode(s, StandardCharsets.UTF_8);
    }

    /** Debezium's JSON list of data collections; null for none. */
    public static String collectionsJson(List<Collection> tables) {
        if (tables.isEmpty()) return null;
        StringBuilder b = new StringBuilder("[");
        for (Collection t : tables) {
            if (b.length() > 1) b.append(',');
            b.append('{');
            pair(b, COLLECTION_ID, t.id()).append(',');
            pair(b, COLLECTION_CONDITION, t.condition()).append(',');
            pair(b, COLLECTION_SURROGATE, t.surrogateKey());
            b.append('}');
        }
        return b.append(']').toString();
    }

    private static StringBuilder pair(StringBuilder b, String k, String v) {
        Json.string(b, k).append(':');
        return v == null ? b.append("null") : Json.string(b, v);
    }

    /** True when {@code offset} (Debezium's) holds an initial or blocking snapshot it did not finish; its type then. */
    public static String unfinishedSnapshot(Map<String, ?> offset) {
        Object s = offset.get(SNAPSHOT);
        if (s == null || "false".equals(String.valueOf(s))) return null;
        if (Boolean.TRUE.equals(offset.get(LAST_SNAPSHOT_RECORD)) || "true".equals(String.valueOf(offset.get(SNAPSHOT_COMPLETED)))) {
            return null;
        }
        String type = "true".equals(String.valueOf(s)) ? "INITIAL" : String.valueOf(s).toUpperCase(Locale.ROOT);
        return type.equals("INCREMENTAL") ? null : type;
    }

    /**
     * Where Debezium's streaming offset leaves off: everything up to the transaction ending at
     * {@code lsn_commit} (else {@code lsn_proc}, else {@code lsn}); {@link Position#START} for an
     * unfinished snapshot's offset or one without a position.
     */
    public static Position position(Map<String, ?> offset) {
        if (offset == null || unfinishedSnapshot(offset) != null) return Position.START;
        for (String k : new String[] {LSN_COMMIT, LSN_PROC, LSN}) {
            if (offset.get(k) instanceof Number n && n.longValue() != 0) return Position.through(n.longValue());
        }
        return Position.START;
    }

    /** True when {@code offset} is Debezium's (not pgrepl's) and holds a streaming position. */
    public static boolean streaming(Map<String, ?> offset) {
        return offset != null && !Position.pgrepl(offset) && position(offset) != Position.START;
    }

    /**
     * The incremental snapshots Debezium had in progress: its data collections, in its order; empty
     * when none.
     *
     * @throws IllegalArgumentException when the stored list is not Debezium's JSON
     */
    public static List<Collection> incremental(Map<String, ?> offset) {
        List<Collection> out = new ArrayList<>();
        if (offset == null || !(offset.get(INCREMENTAL_COLLECTIONS) instanceof String json)) return out;
        for (Map<String, String> o : Json.objects(json, INCREMENTAL_COLLECTIONS)) {
            String id = o.get(COLLECTION_ID);
            if (id == null) throw new IllegalArgumentException(INCREMENTAL_COLLECTIONS + ": an entry without " + COLLECTION_ID);
            out.add(new Collection(id, blank(o.get(COLLECTION_CONDITION)), blank(o.get(COLLECTION_SURROGATE))));
        }
        return out;
    }

    private static String blank(String s) {
        return s == null || s.isEmpty() ? null : s;
    }
}
