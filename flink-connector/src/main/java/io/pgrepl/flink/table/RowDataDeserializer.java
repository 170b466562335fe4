package io.pgrepl.flink.table;

import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.PgTime;
import io.pgrepl.codec.pgoutput.record.Tuple;
import io.pgrepl.flink.PgChange;
import io.pgrepl.flink.PgreplDeserializer;
import io.pgrepl.flink.PgreplFlinkException;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;

/**
 * Changes as the table's RowData: the physical columns by name from the PostgreSQL row, then the
 * metadata columns asked for. A read or insert is +I; an update is -U (the whole old row) and +U,
 * or only +U in upsert mode; a delete is -D with the old row (upsert mode: the key).
 */
final class RowDataDeserializer implements PgreplDeserializer<RowData> {
    private static final long serialVersionUID = 1L;

    private final String[] names;
    private final LogicalType[] types;
    private final List<String> metadata;
    private final boolean upsert;
    private final List<String> key;
    private final String database;
    private final TypeInformation<RowData> typeInfo;
    /** Per field, its column's index in the last row converted (made on first use, per reader). */
    private transient int[] columns;

    RowDataDeserializer(String[] names, LogicalType[] types, List<String> metadata, boolean upsert, List<String> key, String database,
                        TypeInformation<RowData> typeInfo) {
        this.key = List.copyOf(key);
        this.names = names;
        this.types = types;
        this.metadata = List.copyOf(metadata);
        this.upsert = upsert;
        this.database = database;
        this.typeInfo = typeInfo;
    }

    @Override
    public void deserialize(PgChange c, Collector<RowData> out) {
        switch (c.op()) {
            case READ, INSERT -> out.collect(row(c, c.after(), RowKind.INSERT));
            case UPDATE -> {
                if (!upsert) {
                    if (c.before() == null || !c.wholeBefore()) {
                        throw new PgreplFlinkException("an update of " + c.table() + " came without its whole old row, which"
                                + " changelog-mode 'all' retracts: set REPLICA IDENTITY FULL on the table or use changelog-mode 'upsert'");
                    }
                    out.collect(row(c, c.before(), RowKind.UPDATE_BEFORE));
                } else if (c.before() != null && keyChanged(c)) {
                    // upsert rows are by the key: an update that moves a row to another key deletes the old one
                    out.collect(row(c, c.before(), RowKind.DELETE));
                }
                out.collect(row(c, c.after(), RowKind.UPDATE_AFTER));
            }
            case DELETE -> out.collect(row(c, c.before(), RowKind.DELETE));
        }
    }

    private RowData row(PgChange c, Tuple t, RowKind kind) {
        GenericRowData r = new GenericRowData(kind, names.length + metadata.size());
        int[] at = columns;
        if (at == null) columns = at = new int[names.length];
        for (int f = 0; f < names.length; f++) {
            int i = at[f];
            // where the field's column was in the last row: the same unless the table changed (names are the relation's, so equals is identity)
            if (i >= t.size() || !t.name(i).equals(names[f])) at[f] = i = index(t, names[f], c);
            r.setField(f, ValueConverter.convert(t, i, types[f], names[f]));
        }
        for (int m = 0; m < metadata.size(); m++) r.setField(names.length + m, metadata(metadata.get(m), c, kind));
        return r;
    }

    private boolean keyChanged(PgChange c) {
        for (String k : key) {
            Tuple b = c.before();
            Tuple a = c.after();
            int i = index(b, k, c);
            int j = index(a, k, c);
            if (b.hasValue(i) && !b.valueEquals(i, a, j)) return true; // an absent old value: the key did not change
        }
        return false;
    }

    private static int index(Tuple t, String name, PgChange c) {
        for (int i = 0; i < t.size(); i++) if (t.name(i).equals(name)) return i;
        throw new PgreplFlinkException("column " + name + " of the Flink table is not a published column of " + c.table());
    }

    private Object metadata(String key, PgChange c, RowKind kind) {
        return switch (key) {
            case TableMetadata.TABLE_NAME -> StringData.fromString(c.table().table());
            case TableMetadata.SCHEMA_NAME -> StringData.fromString(c.table().schema());
            case TableMetadata.DATABASE_NAME -> StringData.fromString(database);
            case TableMetadata.OP_TS -> TimestampData.fromEpochMillis(c.snapshot() ? 0 : PgTime.toInstant(c.commitTimeMicros()).toEpochMilli());
            case TableMetadata.ROW_KIND -> StringData.fromString(kind.shortString());
            case TableMetadata.LSN -> c.snapshot() ? null : StringData.fromString(Lsn.format(c.commitLsn()));
            default -> throw new IllegalStateException("unknown metadata " + key);
        };
    }

    @Override
    public TypeInformation<RowData> getProducedType() {
        return typeInfo;
    }
}
