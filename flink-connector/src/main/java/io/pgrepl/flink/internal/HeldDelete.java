package io.pgrepl.flink.internal;

import io.pgrepl.codec.pgoutput.ColumnKind;
import io.pgrepl.codec.pgoutput.record.ColumnValue;
import io.pgrepl.codec.pgoutput.record.Tuple;
import io.pgrepl.flink.PgChange;
import io.pgrepl.flink.TableName;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * A removal of a key of a table being read again that the table's pieces already saw: the delete
 * (or the old side of a key-changing update) as the stream sent it, held back. The rows read again
 * do not hold the key, but the changelog may still hold it from before: unless a later change the
 * pieces also saw puts the key back (then the read row holds it and the delete is dropped), it is
 * emitted once the stream passes what the pieces saw, or before the key's next change.
 *
 * @param table     the table
 * @param key       the key's texts
 * @param names     the old row's column names
 * @param oids      their type OIDs
 * @param kinds     their kinds ({@link ColumnKind} ordinals: NULL and absent are both 'n' on the wire)
 * @param values    their bytes (null for NULL and absent columns)
 * @param whole     whether the old row is whole (REPLICA IDENTITY FULL)
 * @param xid       the removing transaction
 * @param commitLsn its commit LSN
 * @param commitTimeMicros its commit time
 */
public record HeldDelete(TableName table, List<String> key, List<String> names, int[] oids, byte[] kinds, byte[][] values,
                         boolean whole, long xid, long commitLsn, long commitTimeMicros) implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Copies the key. */
    public HeldDelete {
        key = List.copyOf(key);
        names = List.copyOf(names);
    }

    static HeldDelete of(TableName table, List<String> key, Tuple old, boolean whole, long xid, long commitLsn, long commitTimeMicros) {
        int n = old.size();
        List<String> names = new ArrayList<>(n);
        int[] oids = new int[n];
        byte[] kinds = new byte[n];
        byte[][] values = new byte[n][];
        for (int i = 0; i < n; i++) {
            names.add(old.name(i));
            oids[i] = old.typeOid(i);
            kinds[i] = (byte) old.kind(i).ordinal();
            values[i] = old.hasValue(i) ? old.bytes(i) : null;
        }
        return new HeldDelete(table, key, names, oids, kinds, values, whole, xid, commitLsn, commitTimeMicros);
    }

    /** {@return the delete to emit} */
    PgChange change() {
        List<ColumnValue> cols = new ArrayList<>(names.size());
        for (int i = 0; i < names.size(); i++) {
            cols.add(new ColumnValue(names.get(i), oids[i], ColumnKind.values()[kinds[i]], values[i]));
        }
        return new PgChange(PgChange.Op.DELETE, table, new Tuple(cols), whole, null, xid, commitLsn, commitTimeMicros);
    }
}
