package io.pgrepl.kafka.connect.records;

import io.pgrepl.codec.pgoutput.ColumnInfo;
import io.pgrepl.codec.pgoutput.record.Relation;
import io.pgrepl.kafka.connect.settings.TableShape;
import io.pgrepl.kafka.connect.values.ValueConverters;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;

/**
 * One table's Connect schemas, built from a pgoutput Relation message: the key (replica identity
 * columns), the row ({@code Value}) and Debezium's envelope. A later Relation with other columns
 * gives a new TableSchema. The {@code Key} and {@code Value} structs carry no version, as
 * Debezium's carry none: a schema is told apart by its fields.
 */
public final class TableSchema {
    public final Relation relation;
    public final String topic;
    public final List<ValueConverters.Column> columns;
    /** Indexes (into columns) of the replica identity columns; empty: no key. */
    public final int[] keyColumns;
    public final Schema keySchema;
    public final Schema rowSchema;
    public final Schema envelopeSchema;
    /** Column name to its default expression, as the catalog gave it when this schema was built. */
    public final Map<String, String> defaults;
    /** What the key was built from (see the constructor), kept for a rebuild with the same key. */
    public final Set<String> keyNames;
    public final Set<String> identityNames;

    /**
     * @param keyNames the key's column names; null: the columns the Relation flags as replica
     *                 identity (for REPLICA IDENTITY FULL that is every column, so the caller gives
     *                 the primary key's instead)
     */
    public TableSchema(Relation relation, String topicPrefix, ValueConverters converters, Set<String> keyNames) {
        this(relation, topicPrefix, converters, keyNames, TableShape.NONE);
    }

    /**
     * @param shape what the column settings make of the columns (excluded from the row, masked,
     *              parameters; a message.key.columns key arrives as {@code keyNames}, its columns
     *              outside the replica identity optional)
     */
    public TableSchema(Relation relation, String topicPrefix, ValueConverters converters, Set<String> keyNames,
                TableShape shape) {
        this(relation, topicPrefix + "." + relation.namespace() + "." + relation.name(), converters, keyNames,
                shape.keyColumns() == null ? keyNames : null, shape);
    }

    /**
     * @param topic the table's topic (topic.naming.strategy's): also the start of the schemas' names
     * @param identityNames the columns PostgreSQL keeps NOT NULL for the key: the replica identity's,
     *                      or under REPLICA IDENTITY FULL the primary key's; null: those the
     *                      Relation flags. They are required in the row, and in a message.key.columns key.
     */
    public TableSchema(Relation relation, String topic, ValueConverters converters, Set<String> keyNames,
                Set<String> identityNames, TableShape shape) {
        this(relation, topic, converters, keyNames, identityNames, shape, Map.of());
    }

    /**
     * @param defaults column name to its default expression ({@code pg_attrdef}), which the column's
     *                 field schema carries as Debezium's does (in the key too)
     */
    public TableSchema(Relation relation, String topic, ValueConverters converters, Set<String> keyNames,
                Set<String> identityNames, TableShape shape, Map<String, String> defaults) {
        this.relation = relation;
        this.defaults = defaults;
        this.keyNames = keyNames;
        this.identityNames = identityNames;
        this.topic = topic;
        String base = topic;
        List<ValueConverters.Column> cols = new ArrayList<>();
        List<Integer> keys = new ArrayList<>();
        SchemaBuilder row = SchemaBuilder.struct().name(base + ".Value").optional();
        for (int i = 0; i < relation.columns().size(); i++) {
            ColumnInfo ci = relation.columns().get(i);
            boolean key = keyNames == null ? ci.isKey() : keyNames.contains(ci.name());
            // Identity columns are NOT NULL (a primary key, or an identity index PostgreSQL keeps NOT NULL):
            // required in the row too, as in Debezium's, whatever message.key.columns names. Other NOT NULL
            // columns stay optional (docs/kafka-connect.md).
            boolean optional = !identity(identityNames, ci);
            ValueConverters.Column c = converters.withDefault(converters.column(ci, optional), defaults.get(ci.name()));
            if (c.omitted()) {
                // A type with no mapping under include.unknown.datatypes=false: in neither the row nor the key, as in Debezium's.
                cols.add(c);
                continue;
            }
            c = ColumnShaping.apply(c, shape, i);
            cols.add(c);
            if (shape.included(i)) row.field(ci.name(), c.schema());
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
                // A message.key.columns column outside the identity may be NULL, or missing from a delete's old tuple.
                boolean optional = !identity(identityNames, ci);
                ValueConverters.Column c = converters.withDefault(converters.column(ci, optional), defaults.get(ci.name()));
                key.field(ci.name(), ColumnShaping.apply(c, shape, k).schema());
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

    private static boolean identity(Set<String> identityNames, ColumnInfo ci) {
        return identityNames == null ? ci.isKey() : identityNames.contains(ci.name());
    }

    /** Same columns (names, types, typmods, key flags) as {@code other}: no new schema version needed. */
    public boolean sameColumns(Relation other) {
        return relation.columns().equals(other.columns()) && relation.namespace().equals(other.namespace())
                && relation.name().equals(other.name());
    }
}
