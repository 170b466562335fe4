package io.pgrepl.kafka.connect.snapshot;

import io.pgrepl.client.snapshot.incremental.TableProgress;
import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.kafka.connect.notifications.Notice;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Debezium's sink notification channel for incremental snapshots: one record per step to
 * notification.sink.topic.name, {@code aggregate_type} "Incremental Snapshot", {@code type} STARTED,
 * IN_PROGRESS (after each chunk), PAUSED, RESUMED, TABLE_SCAN_COMPLETED, ABORTED (stopped), and
 * COMPLETED once no table is left. {@code additional_data} has Debezium 3.6's keys:
 * {@code connector_name} (topic.prefix, Debezium's logical name) on each; {@code data_collections},
 * the tables started and not ended, comma-separated, on all but COMPLETED; IN_PROGRESS adds
 * {@code current_collection_in_progress}, {@code maximum_key} and {@code last_processed_key} (the
 * chunk's last key; with several workers per table, that of the range the chunk belongs to);
 * TABLE_SCAN_COMPLETED adds {@code scanned_collection}, {@code total_rows_scanned} and
 * {@code status} ({@code UNKNOWN_SCHEMA}, with no row read, for a table the connector does not
 * capture, as Debezium). The same notifications go to the jmx and log channels when those are on,
 * as they are built. pgrepl's extras ({@code chunks}, {@code rows_scanned},
 * {@code total_rows_estimate}) ride along on IN_PROGRESS. Builder thread only.
 */
public final class SnapshotNotifications {
    public static final String AGGREGATE_TYPE = "Incremental Snapshot";
    public static final Schema KEY = SchemaBuilder.struct().name("io.debezium.notification.Key").field("id", Schema.STRING_SCHEMA).build();
    public static final Schema VALUE = SchemaBuilder.struct().name("io.debezium.notification.Notification")
            .field("id", Schema.STRING_SCHEMA)
            .field("aggregate_type", Schema.STRING_SCHEMA)
            .field("type", Schema.STRING_SCHEMA)
            .field("additional_data", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.STRING_SCHEMA).optional().build())
            .field("timestamp", Schema.INT64_SCHEMA)
            .build();

    private final String topic;
    private final Consumer<Notice> channels;
    private final String connector;
    private final Map<String, ?> partition;
    private final Function<RelationInfo, String> maximumKey;
    /** Tables seen and not ended, in the order they started, with their last status. */
    private final Map<String, TableProgress.Status> open = new LinkedHashMap<>();
    /** Per table: its relation (from its reads) and the last key read. */
    private final Map<String, RelationInfo> relations = new HashMap<>();
    private final Map<String, String> lastKeys = new HashMap<>();

    /**
     * {@code topic}: the sink channel's, or null; {@code channels}: the jmx and log channels, or null;
     * {@code maximumKey}: a table's largest key when asked first (see {@link MaximumKeys}).
     */
    public SnapshotNotifications(String topic, Consumer<Notice> channels, String connector, Map<String, ?> partition,
                                 Function<RelationInfo, String> maximumKey) {
        this.topic = topic;
        this.channels = channels;
        this.connector = connector;
        this.partition = partition;
        this.maximumKey = maximumKey;
    }

    /**
     * {@link #accept(TableProgress, boolean, Map, Consumer)} after a chunk whose reads were of
     * {@code rel}, the last with key texts {@code lastKey} (both null for a progress without reads).
     */
    public void accept(TableProgress p, RelationInfo rel, String lastKey, boolean nothingLeft, Map<String, ?> offset,
                Consumer<SourceRecord> out) {
        if (rel != null) relations.put(p.table(), rel);
        if (lastKey != null) lastKeys.put(p.table(), lastKey);
        accept(p, nothingLeft, offset, out);
    }

    /**
     * The notifications a table's progress calls for, with {@code offset}; {@code nothingLeft}: the
     * engine's state after it holds no table (none running or queued), so the snapshot is complete.
     */
    public void accept(TableProgress p, boolean nothingLeft, Map<String, ?> offset, Consumer<SourceRecord> out) {
        String t = p.table();
        TableProgress.Status before = open.get(t);
        if (before == null) {
            open.put(t, p.status());
            emit(out, "STARTED", data("data_collections", collections()), offset);
        }
        switch (p.status()) {
            case PLANNING -> { }
            case RUNNING -> {
                if (before == TableProgress.Status.PAUSED) emit(out, "RESUMED", data("data_collections", collections()), offset);
                // PLANNING came before when planning was tried again (STARTED then): no chunk yet, nothing in progress.
                else if ((before != null && before != TableProgress.Status.PLANNING) || p.chunks() > 0) {
                    emit(out, "IN_PROGRESS", progress(p), offset);
                }
                open.put(t, p.status());
            }
            case PAUSED -> {
                if (before != TableProgress.Status.PAUSED) emit(out, "PAUSED", data("data_collections", collections()), offset);
                open.put(t, p.status());
            }
            case COMPLETED, FAILED -> {
                Map<String, String> d = data("data_collections", collections());
                d.put("scanned_collection", t);
                d.put("total_rows_scanned", Long.toString(p.rows()));
                d.put("status", p.status() == TableProgress.Status.COMPLETED ? (p.rows() == 0 ? "EMPTY" : "SUCCEEDED") : "SQL_EXCEPTION");
                if (p.error() != null) d.put("error", p.error());
                emit(out, "TABLE_SCAN_COMPLETED", d, offset);
                ended(t, nothingLeft, offset, out);
            }
            case EXCLUDED -> {
                // Debezium's answer for a table it does not capture (its schema is unknown to it):
                // nothing was read or looked up, so nothing of the table is in it.
                Map<String, String> d = data("data_collections", collections());
                d.put("scanned_collection", t);
                d.put("total_rows_scanned", "0");
                d.put("status", "UNKNOWN_SCHEMA");
                emit(out, "TABLE_SCAN_COMPLETED", d, offset);
                ended(t, nothingLeft, offset, out);
            }
            case STOPPED -> {
                emit(out, "ABORTED", data("data_collections", t), offset); // the stopped table, as Debezium names those stopped
                forget(t); // stopped: ABORTED is its end, not COMPLETED
            }
        }
    }

    private void forget(String table) {
        open.remove(table);
        relations.remove(table);
        lastKeys.remove(table);
    }

    private String collections() {
        return String.join(",", open.keySet());
    }

    private void ended(String table, boolean nothingLeft, Map<String, ?> offset, Consumer<SourceRecord> out) {
        forget(table);
        if (nothingLeft) emit(out, "COMPLETED", data(), offset);
    }

    private Map<String, String> progress(TableProgress p) {
        Map<String, String> d = data("data_collections", collections());
        d.put("current_collection_in_progress", p.table());
        RelationInfo rel = relations.get(p.table());
        d.put("maximum_key", rel == null || maximumKey == null ? MaximumKeys.NONE : maximumKey.apply(rel));
        d.put("last_processed_key", lastKeys.getOrDefault(p.table(), MaximumKeys.NONE));
        d.put("chunks", Long.toString(p.chunks()));
        d.put("rows_scanned", Long.toString(p.rows()));
        d.put("total_rows_estimate", Long.toString(p.estimatedRows()));
        return d;
    }

    private Map<String, String> data(String... kv) {
        Map<String, String> d = new LinkedHashMap<>();
        d.put("connector_name", connector);
        for (int i = 0; i + 1 < kv.length; i += 2) d.put(kv[i], kv[i + 1]);
        return d;
    }

    /** To the other channels at once; to the sink topic (when on) as a record handed over with the reads. */
    private void emit(Consumer<SourceRecord> out, String type, Map<String, String> data, Map<String, ?> offset) {
        String id = UUID.randomUUID().toString();
        long now = System.currentTimeMillis();
        if (channels != null) channels.accept(new Notice(id, AGGREGATE_TYPE, type, data, now));
        if (topic == null) return;
        Struct value = new Struct(VALUE).put("id", id).put("aggregate_type", AGGREGATE_TYPE).put("type", type)
                .put("additional_data", data).put("timestamp", now);
        out.accept(new SourceRecord(partition, offset, topic, null, KEY, new Struct(KEY).put("id", id), VALUE, value));
    }
}
