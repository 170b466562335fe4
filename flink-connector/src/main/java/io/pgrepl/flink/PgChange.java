package io.pgrepl.flink;

import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.PgTime;
import io.pgrepl.codec.pgoutput.record.Tuple;
import java.time.Instant;

/**
 * One change of a captured table as the source hands it to a {@link PgreplDeserializer}: a row read
 * by a snapshot split ({@link Op#READ}) or an insert, update or delete from the stream, with the
 * rows as pgoutput sent them (text values, decoded on demand by {@link Tuple#decode(int)}).
 *
 * <p>{@code before} is the old row of an update or delete: the whole row under REPLICA IDENTITY
 * FULL ({@link #wholeBefore()}), else only the key columns of a delete or of an update that changed
 * the key (the other columns {@link io.pgrepl.codec.pgoutput.ColumnKind#ABSENT}), and null for an
 * update that kept its key. Unchanged TOASTed values of an update's new row are already filled in
 * from the whole old row. The source may cut an update whose key changed into a delete of the old
 * key and an insert of the new one, when the snapshot already held one side (see docs/flink.md).
 */
public final class PgChange {
    /** What happened to the row. */
    public enum Op {
        /** A row read by a snapshot split. */
        READ,
        /** An insert. */
        INSERT,
        /** An update: {@code after} is the new row. */
        UPDATE,
        /** A delete: {@code before} holds the old key or row. */
        DELETE
    }

    private final Op op;
    private final TableName table;
    private final Tuple before;
    private final boolean wholeBefore;
    private final Tuple after;
    private final long xid;
    private final long commitLsn;
    private final long commitTimeMicros;
    private final boolean keyChanged;

    /**
     * A change.
     *
     * @param op               what happened
     * @param table            the table
     * @param before           the old row or key, or null
     * @param wholeBefore      whether {@code before} is the whole old row
     * @param after            the new row, or null for a delete
     * @param xid              the transaction's xid, 0 for a snapshot read
     * @param commitLsn        the LSN of the transaction's commit record, 0 for a snapshot read
     * @param commitTimeMicros the commit time in microseconds since 2000-01-01 UTC, 0 for a snapshot read
     */
    public PgChange(Op op, TableName table, Tuple before, boolean wholeBefore, Tuple after, long xid, long commitLsn,
                    long commitTimeMicros) {
        this(op, table, before, wholeBefore, after, xid, commitLsn, commitTimeMicros, false);
    }

    /**
     * A change, telling whether an update moved the row to another key.
     *
     * @param op               what happened
     * @param table            the table
     * @param before           the old row or key, or null
     * @param wholeBefore      whether {@code before} is the whole old row
     * @param after            the new row, or null for a delete
     * @param xid              the transaction's xid, 0 for a snapshot read
     * @param commitLsn        the LSN of the transaction's commit record, 0 for a snapshot read
     * @param commitTimeMicros the commit time in microseconds since 2000-01-01 UTC, 0 for a snapshot read
     * @param keyChanged       an update that changed the table's key (its primary key, or its replica identity index)
     */
    public PgChange(Op op, TableName table, Tuple before, boolean wholeBefore, Tuple after, long xid, long commitLsn,
                    long commitTimeMicros, boolean keyChanged) {
        this.keyChanged = keyChanged;
        this.op = op;
        this.table = table;
        this.before = before;
        this.wholeBefore = wholeBefore;
        this.after = after;
        this.xid = xid;
        this.commitLsn = commitLsn;
        this.commitTimeMicros = commitTimeMicros;
    }

    /**
     * {@return whether this update moved the row to another key (the key the source reads the table by:
     * its primary key, or its replica identity index); false for every other change}
     */
    public boolean keyChanged() {
        return keyChanged;
    }

    /** {@return what happened} */
    public Op op() {
        return op;
    }

    /** {@return the table} */
    public TableName table() {
        return table;
    }

    /** {@return the old row or key of an update or delete, or null} */
    public Tuple before() {
        return before;
    }

    /** {@return whether {@link #before()} is the whole old row (REPLICA IDENTITY FULL)} */
    public boolean wholeBefore() {
        return wholeBefore;
    }

    /** {@return the new row of a read, insert or update; null for a delete} */
    public Tuple after() {
        return after;
    }

    /** {@return whether a snapshot split read the row} */
    public boolean snapshot() {
        return op == Op.READ;
    }

    /** {@return the transaction's top-level xid (unsigned 32-bit), 0 for a snapshot read} */
    public long xid() {
        return xid;
    }

    /** {@return the LSN of the transaction's commit record, 0 for a snapshot read} */
    public long commitLsn() {
        return commitLsn;
    }

    /** {@return the commit time, or null for a snapshot read} */
    public Instant commitTime() {
        return op == Op.READ ? null : PgTime.toInstant(commitTimeMicros);
    }

    /** {@return the commit time in microseconds since 2000-01-01 UTC as pgoutput sends it, 0 for a snapshot read} */
    public long commitTimeMicros() {
        return commitTimeMicros;
    }

    @Override
    public String toString() {
        return "PgChange[" + op + " " + table + (op == Op.READ ? "" : " xid=" + Long.toUnsignedString(xid)
                + " commit=" + Lsn.format(commitLsn)) + "]";
    }
}
