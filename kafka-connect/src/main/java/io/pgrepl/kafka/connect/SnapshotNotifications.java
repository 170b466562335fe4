package io.pgrepl.kafka.connect;

import io.pgrepl.client.snapshot.incremental.TableProgress;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.function.Consumer;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Debezium's sink notification channel for incremental snapshots: one record per step to
 * notification.sink.topic.name, {@code aggregate_type} "Incremental Snapshot", {@code type} STARTED,
 * IN_PROGRESS (after each chunk), PAUSED, RESUMED, TABLE_SCAN_COMPLETED, ABORTED (stopped), and
 * COMPLETED once no table is left. The engine reports per table, so STARTED and ABORTED name one
 * table each in {@code data_collections}. Builder thread only.
 */
final class SnapshotNotifications {
    static final String AGGREGATE_TYPE = "Incremental Snapshot";
    static final Schema KEY = SchemaBuilder.struct().name("io.debezium.notification.Key").field("id", Schema.STRING_SCHEMA).build();
    static final Schema VALUE = SchemaBuilder.struct().name("io.debezium.notification.Notification")
            .field("id", Schema.STRING_SCHEMA)
            .field("aggregate_type", Schema.STRING_SCHEMA)
            .field("type", Schema.STRING_SCHEMA)
            .field("additional_data", SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.STRING_SCHEMA).optional().build())
            .field("timestamp", Schema.INT64_SCHEMA)
            .build();

    private final String topic;
    private final String connector;
    private final Map<String, ?> partition;
    /** Tables seen and not ended, with their last status. */
    private final Map<String, TableProgress.Status> open = new HashMap<>();

    SnapshotNotifications(String topic, String connector, Map<String, ?> partition) {
        this.topic = topic;
        this.connector = connector;
        this.partition = partition;
    }

    /**
     * The notifications a table's progress calls for, with {@code offset}; {@code nothingLeft}: the
     * engine's state after it holds no table (none running or queued), so the snapshot is complete.
     */
    void accept(TableProgress p, boolean nothingLeft, Map<String, ?> offset, Consumer<SourceRecord> out) {
        String t = p.table();
        TableProgress.Status before = open.get(t);
        if (before == null) {
            open.put(t, p.status());
            out.accept(record("STARTED", data("data_collections", t), offset));
        }
        switch (p.status()) {
            case PLANNING -> { }
            case RUNNING -> {
                if (before == TableProgress.Status.PAUSED) out.accept(record("RESUMED", data("data_collections", t), offset));
                else if (before != null || p.chunks() > 0) out.accept(record("IN_PROGRESS", progress(p), offset));
                open.put(t, p.status());
            }
            case PAUSED -> {
                if (before != TableProgress.Status.PAUSED) out.accept(record("PAUSED", data("data_collections", t), offset));
                open.put(t, p.status());
            }
            case COMPLETED, FAILED -> {
                Map<String, String> d = data("data_collection", t);
                d.put("scanned_collection", t);
                d.put("total_rows_scanned", Long.toString(p.rows()));
                d.put("status", p.status() == TableProgress.Status.COMPLETED ? (p.rows() == 0 ? "EMPTY" : "SUCCEEDED") : "SQL_EXCEPTION");
                if (p.error() != null) d.put("error", p.error());
                out.accept(record("TABLE_SCAN_COMPLETED", d, offset));
                ended(t, nothingLeft, offset, out);
            }
            case STOPPED -> {
                out.accept(record("ABORTED", data("data_collections", t), offset));
                open.remove(t); // stopped: ABORTED is its end, not COMPLETED
            }
        }
    }

    private void ended(String table, boolean nothingLeft, Map<String, ?> offset, Consumer<SourceRecord> out) {
        open.remove(table);
        if (nothingLeft) out.accept(record("COMPLETED", data(), offset));
    }

    private Map<String, String> progress(TableProgress p) {
        Map<String, String> d = data("data_collections", p.table());
        d.put("current_collection_in_progress", p.table());
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

    private SourceRecord record(String type, Map<String, String> data, Map<String, ?> offset) {
        String id = UUID.randomUUID().toString();
        Struct value = new Struct(VALUE).put("id", id).put("aggregate_type", AGGREGATE_TYPE).put("type", type)
                .put("additional_data", data).put("timestamp", System.currentTimeMillis());
        return new SourceRecord(partition, offset, topic, null, KEY, new Struct(KEY).put("id", id), VALUE, value);
    }
}
