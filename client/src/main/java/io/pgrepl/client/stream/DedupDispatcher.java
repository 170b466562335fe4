package io.pgrepl.client.stream;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.pgoutput.BeginMessage;
import io.pgrepl.codec.pgoutput.BeginPrepareMessage;
import io.pgrepl.codec.pgoutput.CommitMessage;
import io.pgrepl.codec.pgoutput.CommitPreparedMessage;
import io.pgrepl.codec.pgoutput.DeleteMessage;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.codec.pgoutput.LogicalMessage;
import io.pgrepl.codec.pgoutput.OriginMessage;
import io.pgrepl.codec.pgoutput.PgOutputHandler;
import io.pgrepl.codec.pgoutput.PrepareMessage;
import io.pgrepl.codec.pgoutput.RelationMessage;
import io.pgrepl.codec.pgoutput.RollbackPreparedMessage;
import io.pgrepl.codec.pgoutput.StreamAbortMessage;
import io.pgrepl.codec.pgoutput.StreamCommitMessage;
import io.pgrepl.codec.pgoutput.StreamStartMessage;
import io.pgrepl.codec.pgoutput.StreamStopMessage;
import io.pgrepl.codec.pgoutput.TruncateMessage;
import io.pgrepl.codec.pgoutput.TypeMessage;
import io.pgrepl.codec.pgoutput.UpdateMessage;
import io.pgrepl.client.schema.SchemaChange;
import io.pgrepl.client.schema.SchemaTracker;
import java.nio.charset.StandardCharsets;
import java.util.function.LongConsumer;

/**
 * Between the decoder and the application's handler of a {@link LogicalReplicationStream}: tracks
 * transaction boundaries for the {@link FeedbackTracker} and withholds what is at or below the
 * de-duplication floor (the rules are on {@link LogicalReplicationStream}). Its own class because
 * it is the one place that decides, message by message, what the handler sees; the stream keeps
 * the connection side. Event loop only.
 */
final class DedupDispatcher implements PgOutputHandler {
    private final LogicalStreamHandler handler;
    /** The handler, if it takes row changes undecoded; else null. */
    private final RawChangeHandler raw;
    private final FeedbackTracker tracker;
    private final long dedupFloor;
    /** Told the end LSN of each delivered transaction or standalone message (auto-acknowledgement). */
    private final LongConsumer delivered;
    /** Relation and DDL capture messages become schema changes here; row changes never reach it. */
    private final SchemaTracker schema;
    private boolean skipping;
    /** Set once the decoder handed the current message here (so a later failure is the handler's). */
    boolean dispatched;
    /** Transactions delivered, for the stream's metrics. */
    long transactions;

    DedupDispatcher(LogicalStreamHandler handler, FeedbackTracker tracker, long dedupFloor, LongConsumer delivered) {
        this(handler, tracker, dedupFloor, delivered, new SchemaTracker(java.util.List.of()));
    }

    DedupDispatcher(LogicalStreamHandler handler, FeedbackTracker tracker, long dedupFloor, LongConsumer delivered,
                    SchemaTracker schema) {
        this.handler = handler;
        this.schema = schema;
        this.raw = handler instanceof RawChangeHandler r ? r : null;
        this.tracker = tracker;
        this.dedupFloor = dedupFloor;
        this.delivered = delivered;
    }

    /** {@return the schema tracker (event loop only)} */
    SchemaTracker schema() {
        return schema;
    }

    /** {@return whether the handler takes row changes undecoded ({@link RawChangeHandler})} */
    boolean takesRawChanges() {
        return raw != null;
    }

    /** An undecoded Insert, Update or Delete: withheld as a decoded one is while skipping. */
    void onRawChange(ByteBuf buffer, int index, int length) {
        if (!skipping) raw.onRawChange(buffer, index, length);
    }

    private boolean duplicate(long commitLsn) {
        return dedupFloor != 0 && Long.compareUnsigned(commitLsn, dedupFloor) < 0;
    }

    @Override
    public void onBegin(BeginMessage m) {
        dispatched = true;
        schema.begin();
        if (duplicate(m.finalLsn())) {
            skipping = true;
            return;
        }
        tracker.transactionStarted();
        handler.onBegin(m);
    }

    @Override
    public void onCommit(CommitMessage m) {
        dispatched = true;
        if (skipping) {
            skipping = false;
            return;
        }
        tracker.transactionEnded(m.endLsn());
        transactions++;
        handler.onCommit(m);
        delivered.accept(m.endLsn());
    }

    @Override
    public void onOrigin(OriginMessage m) {
        dispatched = true;
        if (!skipping) handler.onOrigin(m);
    }

    @Override
    public void onRelation(RelationMessage m) {
        dispatched = true;
        // Delivered even while skipping (as the Relation is): the handler learns every shape it is handed.
        SchemaChange c = schema.relation(m.relation());
        if (c != null) handler.onSchemaChange(c);
        handler.onRelation(m);
    }

    @Override
    public void onType(TypeMessage m) {
        dispatched = true;
        schema.type(m.typeOid(), m.typeInfo().namespace(), m.typeInfo().name());
        handler.onType(m);
    }

    @Override
    public void onInsert(InsertMessage m) {
        dispatched = true;
        if (!skipping) handler.onInsert(m);
    }

    @Override
    public void onUpdate(UpdateMessage m) {
        dispatched = true;
        if (!skipping) handler.onUpdate(m);
    }

    @Override
    public void onDelete(DeleteMessage m) {
        dispatched = true;
        if (!skipping) handler.onDelete(m);
    }

    @Override
    public void onTruncate(TruncateMessage m) {
        dispatched = true;
        if (!skipping) handler.onTruncate(m);
    }

    @Override
    public void onMessage(LogicalMessage m) {
        dispatched = true;
        if (m.transactional()) {
            if (m.prefixEquals(SchemaTracker.DDL_PREFIX)) {
                SchemaChange c = schema.ddl(m.content().toString(StandardCharsets.UTF_8));
                if (c != null && !skipping) handler.onSchemaChange(c);
            }
            if (!skipping) handler.onMessage(m);
            return;
        }
        long lsn = m.messageLsn();
        if (dedupFloor != 0 && Long.compareUnsigned(lsn, dedupFloor) <= 0) return;
        tracker.standaloneDelivered(lsn);
        handler.onMessage(m);
        delivered.accept(lsn);
    }

    @Override
    public void onStreamStart(StreamStartMessage m) {
        dispatched = true;
        tracker.streamOpened(m.xid());
        schema.streamStart(m.xid());
        handler.onStreamStart(m);
    }

    @Override
    public void onStreamStop(StreamStopMessage m) {
        dispatched = true;
        schema.streamStop();
        handler.onStreamStop(m);
    }

    @Override
    public void onStreamCommit(StreamCommitMessage m) {
        dispatched = true;
        tracker.streamClosed(m.xid(), m.endLsn());
        schema.streamCommit(m.xid());
        transactions++;
        handler.onStreamCommit(m);
        delivered.accept(m.endLsn());
    }

    @Override
    public void onStreamAbort(StreamAbortMessage m) {
        dispatched = true;
        if (!m.isSubtransactionAbort()) {
            tracker.streamClosed(m.xid(), 0);
            schema.streamAbort(m.xid());
        }
        handler.onStreamAbort(m);
    }

    @Override
    public void onBeginPrepare(BeginPrepareMessage m) {
        dispatched = true;
        schema.begin();
        if (duplicate(m.prepareLsn())) {
            skipping = true;
            return;
        }
        tracker.transactionStarted();
        handler.onBeginPrepare(m);
    }

    @Override
    public void onPrepare(PrepareMessage m) {
        dispatched = true;
        if (skipping) {
            skipping = false;
            return;
        }
        tracker.transactionEnded(m.endLsn());
        handler.onPrepare(m);
        delivered.accept(m.endLsn());
    }

    @Override
    public void onStreamPrepare(PrepareMessage m) {
        dispatched = true;
        tracker.streamClosed(m.xid(), m.endLsn());
        schema.streamCommit(m.xid());
        handler.onStreamPrepare(m);
        delivered.accept(m.endLsn());
    }

    @Override
    public void onCommitPrepared(CommitPreparedMessage m) {
        dispatched = true;
        if (duplicate(m.commitLsn())) return;
        tracker.standaloneDelivered(m.endLsn());
        transactions++;
        handler.onCommitPrepared(m);
        delivered.accept(m.endLsn());
    }

    @Override
    public void onRollbackPrepared(RollbackPreparedMessage m) {
        dispatched = true;
        if (dedupFloor != 0 && Long.compareUnsigned(m.rollbackEndLsn(), dedupFloor) <= 0) return;
        tracker.standaloneDelivered(m.rollbackEndLsn());
        handler.onRollbackPrepared(m);
        delivered.accept(m.rollbackEndLsn());
    }
}
