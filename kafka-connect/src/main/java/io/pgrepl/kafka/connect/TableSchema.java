package io.pgrepl.kafka.connect;

import io.pgrepl.codec.pgoutput.ColumnInfo;
import io.pgrepl.codec.pgoutput.record.Relation;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;

/**
 * One table's Connect schemas, built from a pgoutput Relation message: the key (replica identity
 * columns), the row ({@code Value}) and Debezium's envelope. A later Relation with other columns
 * gives a new TableSchema. The {@code Key} and {@code Value} structs carry no version, as
 * Debezium's carry none: a schema is told apart by its fields.
 */
final class TableSchema {
    final Relation relation;
    final String topic;
    final List<ValueConverters.Column> columns;
    /** Indexes (into columns) of the replica identity columns; empty: no key. */
    final int[] keyColumns;
    final Schema keySchema;
    final Schema rowSchema;
    final Schema envelopeSchema;

    /**
     * @param keyNames the key's column names; null: the columns the Relation flags as replica
     *                 identity (for REPLICA IDENTITY FULL that is every column, so the caller gives
     *                 the primary key's instead)
     */
    TableSchema(Relation relation, String topicPrefix, ValueConverters converters, Set<String> keyNames) {
        this.relation = relation;
        this.topic = topicPrefix + "." + relation.namespace() + "." + relation.name();
        String base = topic;
        List<ValueConverters.Column> cols = new ArrayList<>();
        List<Integer> keys = new ArrayList<>();
        SchemaBuilder row = SchemaBuilder.struct().name(base + ".Value").optional();
        for (int i = 0; i < relation.columns().size(); i++) {
            ColumnInfo ci = relation.columns().get(i);
            boolean key = keyNames == null ? ci.isKey() : keyNames.contains(ci.name());
            // Key columns are NOT NULL (a primary key, or an identity index PostgreSQL keeps NOT NULL):
            // required in the row too, as in Debezium's. Other NOT NULL columns stay optional (docs/kafka-connect.md).
            ValueConverters.Column c = converters.column(ci, !key);
            cols.add(c);
            row.field(ci.name(), c.schema());
            if (key) keys.add(i);
        }
        this.columns = List.copyOf(cols);
        this.keyColumns = keys.stream().mapToInt(Integer::intValue).toArray();
        this.rowSchema = row.build();
        if (keyColumns.length == 0) {
            this.keySchema = null;
        } else {
            SchemaBuilder key = SchemaBuilder.struct().name(base + ".Key");
            for (int k : keyColumns) {
                ColumnInfo ci = relation.columns().get(k);
                key.field(ci.name(), converters.column(ci, false).schema());
            }
            this.keySchema = key.build();
        }
        this.envelopeSchema = SchemaBuilder.struct().name(base + ".Envelope").version(2)
                .field("before", rowSchema)
                .field("after", rowSchema)
                .field("source", SourceInfo.SCHEMA)
                .field("transaction", SourceInfo.TRANSACTION_SCHEMA)
                .field("op", Schema.STRING_SCHEMA)
                .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA)
                .field("ts_us", Schema.OPTIONAL_INT64_SCHEMA)
                .field("ts_ns", Schema.OPTIONAL_INT64_SCHEMA)
                .build();
    }

    /** Same columns (names, types, typmods, key flags) as {@code other}: no new schema version needed. */
    boolean sameColumns(Relation other) {
        return relation.columns().equals(other.columns()) && relation.namespace().equals(other.namespace())
                && relation.name().equals(other.name());
    }
}
