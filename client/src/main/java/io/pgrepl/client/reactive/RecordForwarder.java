package io.pgrepl.client.reactive;

import io.pgrepl.client.schema.SchemaChange;
import io.pgrepl.client.stream.LogicalStreamHandler;
import io.pgrepl.codec.pgoutput.*;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import io.pgrepl.codec.pgoutput.record.PgOutputRecords;
import io.pgrepl.codec.replication.XLogData;

/**
 * A {@link LogicalStreamHandler} that copies each view into a {@link PgOutputRecord} on the event
 * loop and passes it on with the XLogData positions. The copy is the price of leaving the event loop.
 */
public abstract class RecordForwarder implements LogicalStreamHandler {
    private long walStart;
    private long walEnd;
    private RelationInfo relation;
    /** Told by {@link #onSchemaChange} just before the message it belongs to; handed on with that message's record. */
    private SchemaChange schemaChange;
    private final PgOutputHandler collector = PgOutputRecords.collector(this::collected);

    private void collected(PgOutputRecord r) {
        SchemaChange c = schemaChange;
        schemaChange = null;
        onRecord(r, walStart, walEnd, relation, c);
    }

    /**
     * Called on the event loop for every message; must not block.
     *
     * @param record   the message, a copy that may be kept
     * @param walStart XLogData walStart (0 for Relation/Type)
     * @param walEnd   XLogData walEnd
     */
    protected abstract void onRecord(PgOutputRecord record, long walStart, long walEnd);

    /**
     * Like {@link #onRecord(PgOutputRecord, long, long)}, with the relation of an Insert, Update,
     * Delete or Relation message (null for the others). Calls the three-argument form unless overridden.
     *
     * @param record   the message, a copy that may be kept
     * @param walStart XLogData walStart (0 for Relation/Type)
     * @param walEnd   XLogData walEnd
     * @param relation the table of an Insert, Update, Delete or Relation, else null
     */
    protected void onRecord(PgOutputRecord record, long walStart, long walEnd, RelationInfo relation) {
        onRecord(record, walStart, walEnd);
    }

    /**
     * Like {@link #onRecord(PgOutputRecord, long, long, RelationInfo)}, with the schema change the
     * message tells (on a Relation or a DDL capture message; else null). Calls the four-argument
     * form unless overridden.
     *
     * @param record       the message, a copy that may be kept
     * @param walStart     XLogData walStart (0 for Relation/Type)
     * @param walEnd       XLogData walEnd
     * @param relation     the table of an Insert, Update, Delete or Relation, else null
     * @param schemaChange the change of a table's shape the message tells, else null
     */
    protected void onRecord(PgOutputRecord record, long walStart, long walEnd, RelationInfo relation,
                            SchemaChange schemaChange) {
        onRecord(record, walStart, walEnd, relation);
    }

    @Override
    public void onSchemaChange(SchemaChange change) {
        schemaChange = change;
    }

    /**
     * The schema change told since the last record and not handed on with one yet, for an event a
     * subclass makes itself (an incremental snapshot's read); taking it clears it.
     *
     * @return the change, or null
     */
    protected final SchemaChange takeSchemaChange() {
        SchemaChange c = schemaChange;
        schemaChange = null;
        return c;
    }


    @Override
    public void onXLogData(XLogData header) {
        walStart = header.walStart();
        walEnd = header.walEnd();
    }

    @Override public void onBegin(BeginMessage m) { collector.onBegin(m); }
    @Override public void onCommit(CommitMessage m) { collector.onCommit(m); }
    @Override public void onOrigin(OriginMessage m) { collector.onOrigin(m); }
    @Override public void onRelation(RelationMessage m) { relation = m.relation(); collector.onRelation(m); relation = null; }
    @Override public void onType(TypeMessage m) { collector.onType(m); }
    @Override public void onInsert(InsertMessage m) { relation = m.relation(); collector.onInsert(m); relation = null; }
    @Override public void onUpdate(UpdateMessage m) { relation = m.relation(); collector.onUpdate(m); relation = null; }
    @Override public void onDelete(DeleteMessage m) { relation = m.relation(); collector.onDelete(m); relation = null; }
    @Override public void onTruncate(TruncateMessage m) { collector.onTruncate(m); }
    @Override public void onMessage(LogicalMessage m) { collector.onMessage(m); }
    @Override public void onStreamStart(StreamStartMessage m) { collector.onStreamStart(m); }
    @Override public void onStreamStop(StreamStopMessage m) { collector.onStreamStop(m); }
    @Override public void onStreamCommit(StreamCommitMessage m) { collector.onStreamCommit(m); }
    @Override public void onStreamAbort(StreamAbortMessage m) { collector.onStreamAbort(m); }
    @Override public void onBeginPrepare(BeginPrepareMessage m) { collector.onBeginPrepare(m); }
    @Override public void onPrepare(PrepareMessage m) { collector.onPrepare(m); }
    @Override public void onStreamPrepare(PrepareMessage m) { collector.onStreamPrepare(m); }
    @Override public void onCommitPrepared(CommitPreparedMessage m) { collector.onCommitPrepared(m); }
    @Override public void onRollbackPrepared(RollbackPreparedMessage m) { collector.onRollbackPrepared(m); }
}
