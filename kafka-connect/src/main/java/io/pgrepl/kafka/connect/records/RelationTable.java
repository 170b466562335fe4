package io.pgrepl.kafka.connect.records;

import io.pgrepl.codec.pgoutput.ColumnKind;
import io.pgrepl.codec.pgoutput.record.Tuple;
import io.pgrepl.kafka.connect.settings.TableShape;
import io.pgrepl.kafka.connect.settings.UnavailableValue;
import io.pgrepl.kafka.connect.values.ValueConverters;
import java.nio.ByteBuffer;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;

/**
 * A table's schemas with the Connect {@link Field}s resolved once ({@code Struct.put} by field
 * name looks each one up in a map, which was a quarter of its time), and the row and key values
 * built from a tuple against them. Apart from {@link ChangeRecords} because a row's values depend
 * only on the table, not on the transaction or the position the record is built at.
 */
final class RelationTable {
    final TableSchema schema;
    final int oid;
    final ValueConverters.Column[] columns;
    final Field[] rowFields;
    /** In the order of {@link TableSchema#keyColumns}. */
    final Field[] keyFields;
    final Field before;
    final Field after;
    final Field sourceField;
    final Field op;
    final Field tsMs;
    final Field tsUs;
    final Field tsNs;
    final Field transaction;
    /** Debezium's data collection: {@code schema.table}, unquoted. */
    final String collection;
    /** The {@code source} block of transaction {@link #sourceTx} (-1: of the snapshot at {@link #sourceLsn}). */
    Struct sourceBlock;
    long sourceTx;
    long sourceLsn;

    /** By the Relation's column positions: what an unchanged TOASTed value is sent as. */
    final Object[] placeholders;

    RelationTable(TableSchema schema, TableShape shape, UnavailableValue unavailable) {
        this.schema = schema;
        this.oid = schema.relation.oid();
        this.columns = schema.columns.toArray(new ValueConverters.Column[0]);
        this.placeholders = new Object[columns.length];
        for (int i = 0; i < columns.length; i++) {
            // A column of a type include.unknown.datatypes=false leaves out has no schema, and no placeholder.
            placeholders[i] = columns[i].omitted() ? null : unavailable.in(columns[i].schema(), shape.transform(i));
        }
        // By the Relation's column positions; null for a column the column settings leave out.
        this.rowFields = new Field[columns.length];
        for (int i = 0; i < columns.length; i++) rowFields[i] = schema.rowSchema.field(columns[i].name());
        this.keyFields = schema.keySchema == null ? new Field[0] : schema.keySchema.fields().toArray(new Field[0]);
        Schema env = schema.envelopeSchema;
        this.before = env.field("before");
        this.after = env.field("after");
        this.sourceField = env.field("source");
        this.op = env.field("op");
        this.tsMs = env.field("ts_ms");
        this.tsUs = env.field("ts_us");
        this.tsNs = env.field("ts_ns");
        this.transaction = env.field("transaction");
        this.collection = schema.relation.namespace() + "." + schema.relation.name();
    }

    /**
     * The row value of {@code tuple}; an unchanged TOASTed value from {@code fallback} (REPLICA
     * IDENTITY FULL's old row) when it has one, else the placeholder. {@code reselect}: the row
     * remembers what {@link Reselect} needs.
     */
    Struct row(Tuple tuple, Tuple fallback, boolean reselect) {
        Struct s = reselect ? Reselect.row(schema, tuple, fallback) : new CheckedStruct(schema.rowSchema);
        int n = Math.min(tuple.size(), columns.length);
        for (int i = 0; i < n; i++) {
            ValueConverters.Column c = columns[i];
            Field f = rowFields[i];
            if (f == null) continue; // left out by column.include.list / column.exclude.list
            Tuple from = tuple;
            if (tuple.kind(i) == ColumnKind.UNCHANGED_TOAST) {
                // REPLICA IDENTITY FULL sends the old value: use it; otherwise the placeholder.
                if (fallback != null && i < fallback.size() && fallback.hasValue(i)) from = fallback;
                else {
                    Object p = placeholders[i];
                    s.put(f, p instanceof ByteBuffer b ? b.duplicate() : p); // a position of its own per record
                    continue;
                }
            }
            s.put(f, convert(c, from, i));
        }
        return s;
    }

    /** Column {@code i} of {@code tuple} read in place from the tuple's array (no ColumnValue); null without a value. */
    static Object convert(ValueConverters.Column c, Tuple tuple, int i) {
        Object decoded = tuple.decode(i);
        return decoded == null ? null : c.convert().apply(decoded);
    }

    /** The key of {@code tuple}, or null when the table has no key. */
    Struct keyOf(Tuple tuple) {
        if (schema.keySchema == null) return null;
        Struct k = new Struct(schema.keySchema);
        int[] keyColumns = schema.keyColumns;
        for (int j = 0; j < keyColumns.length; j++) {
            int idx = keyColumns[j];
            k.put(keyFields[j], idx < tuple.size() ? convert(columns[idx], tuple, idx) : null);
        }
        return k;
    }
}
