package io.pgrepl.client.reactive;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.BeginMessage;
import io.pgrepl.codec.pgoutput.BeginPrepareMessage;
import io.pgrepl.codec.pgoutput.CommitMessage;
import io.pgrepl.codec.pgoutput.CommitPreparedMessage;
import io.pgrepl.codec.pgoutput.DeleteMessage;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.codec.pgoutput.LogicalMessage;
import io.pgrepl.codec.pgoutput.OriginMessage;
import io.pgrepl.codec.pgoutput.PgOutputHandler;
import io.pgrepl.codec.pgoutput.PgOutputMessage;
import io.pgrepl.codec.pgoutput.PgOutputMessageType;
import io.pgrepl.codec.pgoutput.PrepareMessage;
import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.codec.pgoutput.RelationMessage;
import io.pgrepl.codec.pgoutput.RollbackPreparedMessage;
import io.pgrepl.codec.pgoutput.StreamAbortMessage;
import io.pgrepl.codec.pgoutput.StreamCommitMessage;
import io.pgrepl.codec.pgoutput.StreamStartMessage;
import io.pgrepl.codec.pgoutput.StreamStopMessage;
import io.pgrepl.codec.pgoutput.TruncateMessage;
import io.pgrepl.codec.pgoutput.TypeMessage;
import io.pgrepl.codec.pgoutput.UpdateMessage;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import io.pgrepl.codec.pgoutput.record.PgOutputRecords;
import java.util.function.LongConsumer;

/**
 * One pgoutput message on the subscriber's thread, as a reusable flyweight: the message's bytes,
 * copied off the event loop into a buffer the publisher recycles, read through the same views as
 * the handler face ({@link InsertMessage}, {@link CommitMessage}, ...) with the XLogData positions
 * it arrived with. Delivering one allocates nothing. On event-loop delivery
 * ({@link FlowOptions#withEventLoopDelivery()}) a message the subscriber can take at once is not
 * copied: its view reads the socket read's own bytes, still held during that onNext.
 *
 * <p><b>Valid only until {@code onNext} returns.</b> The publisher then reuses this object, and its
 * views, for a later message. Keep nothing from it: read what you need during {@code onNext}, or
 * keep {@link #toEvent()}, an immutable copy. Hence no operator that queues or changes threads
 * between the publisher and the code that reads it (Reactor's {@code publishOn}, {@code limitRate},
 * {@code buffer}, ...): the publisher's own bounded queue already holds what demand does not take.
 *
 * <p>Also single-threaded: read it on the thread that runs {@code onNext}. Its message accessors
 * throw {@link IllegalStateException} once onNext returned (its positions are then another
 * message's).
 */
public final class ChangeView {
    /** Above this a recycled view's buffer shrinks back, so large messages are not kept once per pooled view. */
    static final int KEEP_CAPACITY = 2048;
    static final int INITIAL_CAPACITY = 128;

    final ByteBuf bytes = Unpooled.buffer(INITIAL_CAPACITY);
    private final LongConsumer acknowledger;
    /** The subscriber's side, shared by the pool's views: only the lent view reads through it. */
    private final Lent lent;
    long walStart;
    long walEnd;
    /** The schema change told by this view's message (Relation or DDL capture message), else null; written on the event loop. */
    io.pgrepl.client.schema.SchemaChange schemaChange;
    /** On event-loop delivery, the socket read's own bytes this view is lent over, instead of a copy in {@link #bytes}. */
    ByteBuf borrowed;
    int borrowedIndex;
    int borrowedLength;

    /**
     * The view being delivered and its decoded message: written on the subscriber's thread only,
     * so a view's own fields are written by the event loop alone and its cache lines travel one way.
     */
    static final class Lent {
        ChangeView view;
        PgOutputMessage message;
        RelationInfo relation;
    }

    ChangeView(LongConsumer acknowledger, Lent lent) {
        this.acknowledger = acknowledger;
        this.lent = lent;
    }

    private Lent lent() {
        Lent l = lent;
        if (l.view != this) throw new IllegalStateException("a ChangeView is valid only until onNext returns; keep toEvent() instead");
        return l;
    }

    /** {@return XLogData walStart (0 for Relation/Type and a Begin followed by Origin)} */
    public long walStart() {
        return walStart;
    }

    /** {@return XLogData walEnd} */
    public long walEnd() {
        return walEnd;
    }

    /** {@return the message's type byte, one of {@link PgOutputMessageType}} */
    public byte type() {
        return lent().message.type();
    }

    /**
     * The message as the handler face's view, e.g. {@code if (v.message() instanceof InsertMessage m)}.
     * Its accessors read the bytes in place (a copy, or the socket read's own); indexes are relative
     * to {@code message().buffer()}. Like the view, valid only until onNext returns.
     *
     * @return the view, valid until onNext returns
     * @throws IllegalStateException after onNext returned
     */
    public PgOutputMessage message() {
        return lent().message;
    }

    /**
     * For Insert, Update, Delete and Relation: the table (schema, name, columns, key flags) as last
     * described by the server; null on other messages.
     *
     * @return the relation, or null
     * @throws IllegalStateException after onNext returned
     */
    public RelationInfo relation() {
        return lent().relation;
    }

    /**
     * As {@link ChangeEvent#schemaChange()}: on a Relation, the change of the table's shape it tells
     * (null when it repeats the shape last delivered); on a DDL capture message, the CREATE or DROP
     * it tells; else null. Immutable: may be kept past onNext.
     *
     * @return the change, or null
     * @throws IllegalStateException after onNext returned
     */
    public io.pgrepl.client.schema.SchemaChange schemaChange() {
        lent();
        return schemaChange;
    }

    /** {@return the row's schema (pg_catalog for the empty namespace), or null without a relation} */
    public String schema() {
        RelationInfo r = relation();
        return r == null ? null : r.schema();
    }

    /** {@return the row's table name, or null without a relation} */
    public String table() {
        RelationInfo r = relation();
        return r == null ? null : r.name();
    }

    /**
     * The end LSN this message lets the application confirm, as {@link ChangeEvent#ackLsn()}: set
     * on the messages that end a transaction and on a non-transactional logical message; else 0.
     *
     * @return the LSN, or 0
     */
    public long ackLsn() {
        PgOutputMessage m = message();
        if (m instanceof CommitMessage c) return c.endLsn();
        if (m instanceof StreamCommitMessage c) return c.endLsn();
        if (m instanceof PrepareMessage p) return p.endLsn();
        if (m instanceof CommitPreparedMessage k) return k.endLsn();
        if (m instanceof RollbackPreparedMessage rb) return rb.rollbackEndLsn();
        if (m instanceof LogicalMessage l && !l.transactional()) return l.messageLsn();
        return 0;
    }

    /**
     * Confirms {@link #ackLsn()}, as {@link ChangeEvent#acknowledge()}: a no-op inside a
     * transaction. Never called implicitly unless auto-acknowledge is set.
     */
    public void acknowledge() {
        long lsn = ackLsn();
        if (lsn != 0 && acknowledger != null) acknowledger.accept(lsn);
    }

    /**
     * Calls the matching method of {@code handler} with this message's view, as the handler face
     * would: e.g. to reuse a {@link PgOutputHandler} written for it.
     *
     * @param handler receives the view, valid until onNext returns
     */
    public void dispatch(PgOutputHandler handler) {
        PgOutputMessage m = message();
        switch (m.type()) {
            case PgOutputMessageType.BEGIN -> handler.onBegin((BeginMessage) m);
            case PgOutputMessageType.COMMIT -> handler.onCommit((CommitMessage) m);
            case PgOutputMessageType.ORIGIN -> handler.onOrigin((OriginMessage) m);
            case PgOutputMessageType.RELATION -> handler.onRelation((RelationMessage) m);
            case PgOutputMessageType.TYPE -> handler.onType((TypeMessage) m);
            case PgOutputMessageType.INSERT -> handler.onInsert((InsertMessage) m);
            case PgOutputMessageType.UPDATE -> handler.onUpdate((UpdateMessage) m);
            case PgOutputMessageType.DELETE -> handler.onDelete((DeleteMessage) m);
            case PgOutputMessageType.TRUNCATE -> handler.onTruncate((TruncateMessage) m);
            case PgOutputMessageType.MESSAGE -> handler.onMessage((LogicalMessage) m);
            case PgOutputMessageType.STREAM_START -> handler.onStreamStart((StreamStartMessage) m);
            case PgOutputMessageType.STREAM_STOP -> handler.onStreamStop((StreamStopMessage) m);
            case PgOutputMessageType.STREAM_COMMIT -> handler.onStreamCommit((StreamCommitMessage) m);
            case PgOutputMessageType.STREAM_ABORT -> handler.onStreamAbort((StreamAbortMessage) m);
            case PgOutputMessageType.BEGIN_PREPARE -> handler.onBeginPrepare((BeginPrepareMessage) m);
            case PgOutputMessageType.PREPARE -> handler.onPrepare((PrepareMessage) m);
            case PgOutputMessageType.STREAM_PREPARE -> handler.onStreamPrepare((PrepareMessage) m);
            case PgOutputMessageType.COMMIT_PREPARED -> handler.onCommitPrepared((CommitPreparedMessage) m);
            case PgOutputMessageType.ROLLBACK_PREPARED -> handler.onRollbackPrepared((RollbackPreparedMessage) m);
            default -> throw new IllegalStateException("no view for type " + m.typeName());
        }
    }

    /**
     * An immutable copy that may be kept past onNext: the {@link ChangeEvent} the record face
     * ({@link ReactiveReplication#changes}) would have delivered for this message. Allocates.
     *
     * @return the copy
     */
    public ChangeEvent toEvent() {
        PgOutputRecord[] out = new PgOutputRecord[1];
        dispatch(PgOutputRecords.collector(r -> out[0] = r));
        return new ChangeEvent(out[0], walStart, walEnd, acknowledger, relation(), false, schemaChange);
    }

    @Override
    public String toString() {
        Lent l = lent;
        return "ChangeView[" + (l.view != this ? "not being delivered" : l.message.typeName()
                + (l.relation == null ? "" : " on " + l.relation.schema() + "." + l.relation.name()))
                + ", walStart=" + Lsn.format(walStart) + "]";
    }
}
