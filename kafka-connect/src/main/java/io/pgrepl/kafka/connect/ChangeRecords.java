package io.pgrepl.kafka.connect;

import io.pgrepl.codec.PgTime;
import io.pgrepl.codec.pgoutput.ColumnKind;
import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.codec.pgoutput.record.ColumnValue;
import io.pgrepl.codec.pgoutput.record.Delete;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.codec.pgoutput.record.Message;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import io.pgrepl.codec.pgoutput.record.Relation;
import io.pgrepl.codec.pgoutput.record.Truncate;
import io.pgrepl.codec.pgoutput.record.Tuple;
import io.pgrepl.codec.pgoutput.record.Update;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Turns the changes of one transaction into Debezium-enveloped records, in server order, keeping
 * the schema of each relation from its latest Relation message. Each record's offset is its
 * transaction's end LSN and its index among the transaction's records, which is what a restart
 * skips by (see {@link Position}).
 */
final class ChangeRecords {
    static final String HEARTBEAT_TOPIC_PREFIX = "__debezium-heartbeat.";
    static final Schema HEARTBEAT_KEY = SchemaBuilder.struct().name("io.debezium.connector.common.ServerNameKey")
            .field("serverName", Schema.STRING_SCHEMA).build();
    static final Schema HEARTBEAT_VALUE = SchemaBuilder.struct().name("io.debezium.connector.common.Heartbeat")
            .field("ts_ms", Schema.INT64_SCHEMA).build();
    static final Schema MESSAGE_BLOCK = SchemaBuilder.struct().name("io.debezium.connector.postgresql.Message")
            .field("prefix", Schema.STRING_SCHEMA).field("content", Schema.BYTES_SCHEMA).build();
    static final Schema MESSAGE_VALUE = SchemaBuilder.struct().name("io.debezium.connector.postgresql.MessageValue")
            .field("op", Schema.STRING_SCHEMA).field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
            .field("message", MESSAGE_BLOCK).build();

    private final PgreplConnectorConfig config;
    private final ValueConverters converters;
    private final TableFilter filter;
    /** A REPLICA IDENTITY FULL table's primary key column names (see {@link PrimaryKeys}). */
    private final IntFunction<Set<String>> primaryKeys;
    private final Map<String, ?> partition;
    private final String db;
    private final Map<Integer, TableSchema> schemas = new HashMap<>();
    private final Map<String, Integer> versions = new HashMap<>();

    /** The transaction being converted: set by {@link #begin}. */
    private long endLsn;
    private long commitLsn;
    private long xid;
    private long commitMicros;
    private long previousCommit;
    private int index;

    ChangeRecords(PgreplConnectorConfig config, Map<String, ?> partition, String db, EnumTypes enums,
                  IntFunction<Set<String>> primaryKeys) {
        this.config = config;
        this.converters = new ValueConverters(config.decimalMode(), config.binaryMode(), config.timePrecisionMode(),
                enums::labels, enums::enumOfArray);
        this.filter = config.tableFilter();
        this.primaryKeys = primaryKeys;
        this.partition = partition;
        this.db = db;
    }

    void begin(long endLsn, long commitLsn, long xid, long commitPgMicros) {
        this.previousCommit = this.endLsn;
        this.endLsn = endLsn;
        this.commitLsn = commitLsn;
        this.xid = xid;
        this.commitMicros = commitPgMicros + PgTime.PG_EPOCH_UNIX_MICROS;
        this.index = 0;
    }

    /** How many records of the current transaction were produced (skipped ones included). */
    int index() {
        return index;
    }

    /**
     * Adds the records for {@code r} to {@code out}; those at or below {@code skipThrough}
     * (records already written before a restart) are counted but not added.
     */
    void accept(PgOutputRecord r, Position skipThrough, Consumer<SourceRecord> out) {
        if (r instanceof Relation rel) {
            relation(rel);
        } else if (r instanceof Insert ins) {
            TableSchema t = table(ins.relationOid());
            if (t != null) emit(t, "c", null, row(t, ins.newTuple(), null), ins.newTuple(), skipThrough, out);
        } else if (r instanceof Update up) {
            update(up, skipThrough, out);
        } else if (r instanceof Delete del) {
            TableSchema t = table(del.relationOid());
            if (t == null) return;
            emit(t, "d", row(t, del.oldTuple(), null), null, del.oldTuple(), skipThrough, out);
            if (config.tombstonesOnDelete()) tombstone(t, del.oldTuple(), skipThrough, out);
        } else if (r instanceof Truncate tr) {
            for (int oid : tr.relationOids()) {
                TableSchema t = table(oid);
                if (t != null) emitTruncate(t, skipThrough, out);
            }
        } else if (r instanceof Message m) {
            message(m, skipThrough, out);
        }
        // Type, Origin: nothing to send
    }

    /**
     * Row {@code index} of an initial snapshot taken at {@code consistentPoint}: Debezium's read
     * ({@code op=r}, {@code before} null, {@code source.snapshot="true"}), with the topic, key and
     * {@code after} of an insert into the same table. Nothing when the table is filtered out.
     */
    void read(RelationInfo rel, Insert row, long consistentPoint, int index, long snapshotMicros,
              Consumer<SourceRecord> out) {
        relation(new Relation(0, rel.oid(), rel.namespace(), rel.name(), rel.replicaIdentity(), rel.columns()));
        TableSchema t = table(rel.oid());
        if (t == null) return;
        Struct source = SourceInfo.of(config.topicPrefix(), db, rel.namespace(), rel.name(), snapshotMicros, 0,
                consistentPoint, 0, "true").put("txId", null);
        long now = System.currentTimeMillis();
        Struct value = new Struct(t.envelopeSchema).put("before", null).put("after", row(t, row.newTuple(), null))
                .put("source", source).put("op", "r").put("ts_ms", now).put("ts_us", now * 1000).put("ts_ns", now * 1_000_000);
        out.accept(new SourceRecord(partition, Position.snapshotRead(consistentPoint, index), t.topic, null,
                t.keySchema, keyOf(t, row.newTuple()), t.envelopeSchema, value, snapshotMicros / 1000));
    }

    /** {@code read} as the snapshot's last record: {@code source.snapshot="last"}, and the offset says the copy is done. */
    static SourceRecord lastRead(SourceRecord read, long consistentPoint) {
        ((Struct) read.value()).getStruct("source").put("snapshot", "last");
        return new SourceRecord(read.sourcePartition(), Position.snapshotDone(consistentPoint), read.topic(),
                read.kafkaPartition(), read.keySchema(), read.key(), read.valueSchema(), read.value(), read.timestamp());
    }

    private void relation(Relation rel) {
        TableSchema old = schemas.get(rel.oid());
        if (old != null && old.sameColumns(rel)) return;
        if (!filter.test(rel.namespace(), rel.name())) {
            schemas.remove(rel.oid());
            return;
        }
        String name = rel.namespace() + "." + rel.name();
        int v = versions.merge(name, 1, Integer::sum);
        Set<String> key = rel.replicaIdentity() == 'f' ? primaryKeys.apply(rel.oid()) : null;
        schemas.put(rel.oid(), new TableSchema(rel, config.topicPrefix(), v, converters, key));
    }

    /** Null when the table is filtered out. */
    private TableSchema table(int oid) {
        return schemas.get(oid);
    }

    private void update(Update up, Position skip, Consumer<SourceRecord> out) {
        TableSchema t = table(up.relationOid());
        if (t == null) return;
        Struct before = up.oldTuple() == null ? null : row(t, up.oldTuple(), null);
        Struct after = row(t, up.newTuple(), up.oldTuple());
        if (up.oldTuple() != null && t.keySchema != null && !keyOf(t, up.oldTuple()).equals(keyOf(t, up.newTuple()))) {
            // A key change is a delete of the old key and a create of the new one, as Debezium sends it.
            emit(t, "d", before, null, up.oldTuple(), skip, out);
            if (config.tombstonesOnDelete()) tombstone(t, up.oldTuple(), skip, out);
            emit(t, "c", null, after, up.newTuple(), skip, out);
            return;
        }
        emit(t, "u", before, after, up.newTuple(), skip, out);
    }

    private Struct row(TableSchema t, Tuple tuple, Tuple fallback) {
        Struct s = new Struct(t.rowSchema);
        int n = Math.min(tuple.size(), t.columns.size());
        for (int i = 0; i < n; i++) {
            ValueConverters.Column c = t.columns.get(i);
            ColumnValue v = tuple.get(i);
            if (v.kind() == ColumnKind.UNCHANGED_TOAST) {
                // REPLICA IDENTITY FULL sends the old value: use it; otherwise the placeholder.
                ColumnValue old = fallback != null && i < fallback.size() ? fallback.get(i) : null;
                if (old != null && old.kind().hasValue()) v = old;
                else {
                    s.put(c.name(), placeholder(c.schema()));
                    continue;
                }
            }
            s.put(c.name(), v.kind().hasValue() ? convert(c, v) : null);
        }
        return s;
    }

    private static Object convert(ValueConverters.Column c, ColumnValue v) {
        Object decoded = v.decode();
        return decoded == null ? null : c.convert().apply(decoded);
    }

    private Object placeholder(Schema schema) {
        String p = config.unavailablePlaceholder();
        return switch (schema.type()) {
            case STRING -> p;
            case BYTES -> ByteBuffer.wrap(p.getBytes(StandardCharsets.UTF_8));
            case ARRAY -> schema.valueSchema().type() == Schema.Type.STRING ? List.of(p) : null;
            default -> null;
        };
    }

    private Struct keyOf(TableSchema t, Tuple tuple) {
        if (t.keySchema == null) return null;
        Struct k = new Struct(t.keySchema);
        for (int idx : t.keyColumns) {
            ValueConverters.Column c = t.columns.get(idx);
            ColumnValue v = idx < tuple.size() ? tuple.get(idx) : null;
            k.put(c.name(), v == null || !v.kind().hasValue() ? null : convert(c, v));
        }
        return k;
    }

    private Struct source(TableSchema t) {
        return SourceInfo.of(config.topicPrefix(), db, t.relation.namespace(), t.relation.name(), commitMicros, xid,
                commitLsn, previousCommit, "false");
    }

    private void emit(TableSchema t, String op, Struct before, Struct after, Tuple keyTuple, Position skip,
                      Consumer<SourceRecord> out) {
        int i = index++;
        if (skip.covers(endLsn, i)) return;
        long now = System.currentTimeMillis();
        Struct value = new Struct(t.envelopeSchema)
                .put("before", before).put("after", after).put("source", source(t)).put("op", op)
                .put("ts_ms", now).put("ts_us", now * 1000).put("ts_ns", now * 1_000_000);
        Struct key = keyOf(t, keyTuple);
        out.accept(new SourceRecord(partition, Position.offset(endLsn, i), t.topic, null,
                t.keySchema, key, t.envelopeSchema, value, commitMicros / 1000));
    }

    private void tombstone(TableSchema t, Tuple keyTuple, Position skip, Consumer<SourceRecord> out) {
        int i = index++;
        if (skip.covers(endLsn, i)) return;
        out.accept(new SourceRecord(partition, Position.offset(endLsn, i), t.topic, null,
                t.keySchema, keyOf(t, keyTuple), null, null, commitMicros / 1000));
    }

    private void emitTruncate(TableSchema t, Position skip, Consumer<SourceRecord> out) {
        int i = index++;
        if (skip.covers(endLsn, i)) return;
        Struct value = new Struct(t.envelopeSchema).put("source", source(t)).put("op", "t")
                .put("ts_ms", System.currentTimeMillis());
        out.accept(new SourceRecord(partition, Position.offset(endLsn, i), t.topic, null,
                null, null, t.envelopeSchema, value, commitMicros / 1000));
    }

    private void message(Message m, Position skip, Consumer<SourceRecord> out) {
        String topic = config.messagesTopic();
        if (topic == null || topic.isEmpty()) return;
        int i = index++;
        if (skip.covers(endLsn, i)) return;
        Struct value = new Struct(MESSAGE_VALUE).put("op", "m").put("ts_ms", System.currentTimeMillis())
                .put("message", new Struct(MESSAGE_BLOCK).put("prefix", m.prefix()).put("content", m.content()));
        out.accept(new SourceRecord(partition, Position.offset(endLsn, i), topic, null,
                Schema.STRING_SCHEMA, m.prefix(), MESSAGE_VALUE, value));
    }

    SourceRecord heartbeat(Position at) {
        Map<String, ?> offset = at == null ? null : Position.offset(at.endLsn(), at.index());
        return new SourceRecord(partition, offset, HEARTBEAT_TOPIC_PREFIX + config.topicPrefix(), null,
                HEARTBEAT_KEY, new Struct(HEARTBEAT_KEY).put("serverName", config.topicPrefix()),
                HEARTBEAT_VALUE, new Struct(HEARTBEAT_VALUE).put("ts_ms", System.currentTimeMillis()));
    }

    /** Non-transactional messages: one record in a position of their own (their LSN, index 0). */
    void beginStandalone(long lsn) {
        begin(lsn, lsn, 0, (System.currentTimeMillis() * 1000) - PgTime.PG_EPOCH_UNIX_MICROS);
    }
}
