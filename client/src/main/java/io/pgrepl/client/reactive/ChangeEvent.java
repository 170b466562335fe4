package io.pgrepl.client.reactive;

import io.pgrepl.client.schema.SchemaChange;
import io.pgrepl.codec.pgoutput.record.CommitPrepared;
import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.codec.pgoutput.record.Commit;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.codec.pgoutput.record.Message;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import io.pgrepl.codec.pgoutput.record.Prepare;
import io.pgrepl.codec.pgoutput.record.RollbackPrepared;
import io.pgrepl.codec.pgoutput.record.StreamCommit;
import io.pgrepl.codec.pgoutput.record.StreamPrepare;

import java.util.function.LongConsumer;

/**
 * One pgoutput message, copied off the event loop, with the XLogData positions it arrived with;
 * or one row of an initial snapshot ({@link #snapshotRead()}: an {@link Insert} record whose
 * positions are the slot's consistent point).
 *
 * @param record       the message
 * @param walStart     XLogData walStart (0 for Relation/Type and a Begin followed by Origin)
 * @param walEnd       XLogData walEnd
 * @param relation     for Insert, Update, Delete and Relation: the table (schema, name, columns,
 *                     key flags) as last described by the server, so consumers need not track
 *                     Relation messages; null on other messages
 * @param snapshotRead true for a row read by the initial snapshot rather than streamed
 * @param schemaChange on a Relation record, the change of the table's shape it tells (null when it
 *                     repeats the shape last delivered); on a DDL capture message, the CREATE or
 *                     DROP it tells; null on every other event. Comes before any row of the new shape.
 */
public record ChangeEvent(PgOutputRecord record, long walStart, long walEnd, LongConsumer acknowledger,
                          RelationInfo relation, boolean snapshotRead, SchemaChange schemaChange) {
    /**
     * An event without a schema change.
     *
     * @param record       the message
     * @param walStart     XLogData walStart
     * @param walEnd       XLogData walEnd
     * @param acknowledger acknowledges an LSN on the stream the message came from, or null
     * @param relation     the table of an Insert, Update, Delete or Relation, else null
     * @param snapshotRead true for a row read by a snapshot
     */
    public ChangeEvent(PgOutputRecord record, long walStart, long walEnd, LongConsumer acknowledger,
                       RelationInfo relation, boolean snapshotRead) {
        this(record, walStart, walEnd, acknowledger, relation, snapshotRead, null);
    }

    /**
     * A streamed message without a relation.
     *
     * @param record       the message
     * @param walStart     XLogData walStart
     * @param walEnd       XLogData walEnd
     * @param acknowledger acknowledges an LSN on the stream the message came from, or null
     */
    public ChangeEvent(PgOutputRecord record, long walStart, long walEnd, LongConsumer acknowledger) {
        this(record, walStart, walEnd, acknowledger, null, false);
    }

    /**
     * A row of an initial snapshot, read at {@code consistentPoint}. Nothing to acknowledge.
     *
     * @param row             the row, as an Insert
     * @param relation        its table
     * @param consistentPoint the slot's consistent point, the snapshot's position
     * @return the event, with {@link #snapshotRead()} true
     */
    public static ChangeEvent snapshotRead(Insert row, RelationInfo relation, long consistentPoint) {
        return new ChangeEvent(row, consistentPoint, consistentPoint, null, relation, true);
    }

    /** {@return the row's schema (pg_catalog for the empty namespace), or null without a relation} */
    public String schema() {
        return relation == null ? null : relation.schema();
    }

    /** {@return the row's table name, or null without a relation} */
    public String table() {
        return relation == null ? null : relation.name();
    }

    /**
     * The end LSN this message lets the application confirm: set on the messages that end a
     * transaction (Commit, Stream Commit, Prepare, Stream Prepare, Commit/Rollback Prepared), and
     * on a non-transactional logical message; 0 on every other message.
     *
     * @return the LSN, or 0
     */
    public long ackLsn() {
        PgOutputRecord r = record;
        if (r instanceof Commit c) return c.endLsn();
        if (r instanceof StreamCommit c) return c.endLsn();
        if (r instanceof Prepare p) return p.endLsn();
        if (r instanceof StreamPrepare p) return p.endLsn();
        if (r instanceof CommitPrepared k) return k.endLsn();
        if (r instanceof RollbackPrepared rb) return rb.rollbackEndLsn();
        if (r instanceof Message m && !m.transactional()) return m.messageLsn();
        return 0;
    }

    /**
     * Confirms {@link #ackLsn()} (everything up to the end of this transaction is durably
     * processed). A no-op on messages inside a transaction: confirming a mid-transaction position
     * would not skip anything on restart. Never called implicitly unless auto-acknowledge is set.
     */
    public void acknowledge() {
        long lsn = ackLsn();
        if (lsn != 0 && acknowledger != null) acknowledger.accept(lsn);
    }

    @Override
    public String toString() {
        return "ChangeEvent[" + (snapshotRead ? "snapshot read " : "") + record + (relation == null ? "" : " on " + schema() + "." + table())
                + (schemaChange == null ? "" : ", " + schemaChange) + ", walStart=" + io.pgrepl.codec.Lsn.format(walStart) + "]";
    }
}
