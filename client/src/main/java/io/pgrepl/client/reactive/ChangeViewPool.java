package io.pgrepl.client.reactive;

import io.netty.buffer.ByteBuf;
import io.netty.util.internal.PlatformDependent;
import io.pgrepl.client.internal.reactive.FlowBuffer;
import io.pgrepl.client.internal.reactive.Lease;
import io.pgrepl.client.internal.reactive.ReadBatchSink;
import io.pgrepl.client.stream.LogicalStreamHandler;
import io.pgrepl.client.stream.RawChangeHandler;
import io.pgrepl.client.stream.ReplicationProtocolException;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.pgoutput.*;
import io.pgrepl.codec.replication.XLogData;
import java.util.Queue;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * The {@link ChangeView}s of one publisher: taken on the event loop, where a message's bytes are
 * copied into one; lent to the subscriber for one onNext, decoded there by a decoder of its own;
 * given back when onNext returned, to be reused. So the number of views is bounded by the
 * publisher's queue (high watermark plus one socket read) plus the one being delivered, and a
 * steady stream allocates nothing per message.
 *
 * <p>On event-loop delivery a message the subscriber can take at once (demand, nothing queued) is
 * neither copied nor queued: a view over the read's own bytes is decoded and delivered there and
 * then, inside the read, by the same decoder. Only messages that must wait are copied.
 *
 * <p>The subscriber's decoder sees every message in server order (views are lent in queue order,
 * Relation and Stream Start/Stop included), so its relation cache and stream-block state are the
 * event loop decoder's, one message later. The loop decodes every message but row changes, which it
 * only frames and copies: each Insert, Update and Delete is decoded once, here.
 */
final class ChangeViewPool implements Lease<ChangeView> {
    private final Queue<ChangeView> free;
    private final PgOutputDecoder decoder = new PgOutputDecoder();
    private final ChangeView.Lent lent = new ChangeView.Lent();
    private final Capture capture = new Capture(lent);
    private volatile LongConsumer acknowledger;
    /**
     * The views lent over a read's own bytes (event loop, event-loop delivery). Two, alternating, so
     * that a view kept from one onNext is refused in the next as a pooled one is.
     */
    private final ChangeView[] overRead = new ChangeView[2];
    private int flip;

    /** @param highWatermark the publisher's; the pool keeps that many views and a read's worth */
    ChangeViewPool(int highWatermark) {
        free = PlatformDependent.newFixedMpscQueue(Math.max(1024, highWatermark + 4096));
    }

    /**
     * The event loop's handler: one view per message, into {@code sink}.
     *
     * @param sink         the publisher's sink
     * @param acknowledger the stream's acknowledge(lsn), given to every view
     * @return the handler
     */
    LogicalStreamHandler forwarder(Consumer<ChangeView> sink, LongConsumer acknowledger) {
        this.acknowledger = acknowledger;
        overRead[0] = new ChangeView(acknowledger, lent);
        overRead[1] = new ChangeView(acknowledger, lent);
        return new Forwarder(sink);
    }

    /** Event loop: a view over a message's bytes where they are, for one {@link ReadBatchSink#deliverNow}. */
    private ChangeView borrow(ByteBuf buffer, int index, int length, long walStart, long walEnd,
                              io.pgrepl.client.schema.SchemaChange schemaChange) {
        ChangeView v = overRead[flip ^= 1];
        v.schemaChange = schemaChange;
        v.borrowed = buffer;
        v.borrowedIndex = index;
        v.borrowedLength = length;
        v.walStart = walStart;
        v.walEnd = walEnd;
        return v;
    }

    /** Event loop: a free view holding a copy of a message's bytes. */
    ChangeView take(ByteBuf buffer, int index, int length, long walStart, long walEnd,
                    io.pgrepl.client.schema.SchemaChange schemaChange) {
        ChangeView v = free.poll();
        if (v == null) v = new ChangeView(acknowledger, lent);
        v.schemaChange = schemaChange;
        v.bytes.clear().writeBytes(buffer, index, length);
        v.walStart = walStart;
        v.walEnd = walEnd;
        return v;
    }

    /**
     * Decodes the view's bytes on the subscriber's thread. Row changes reach here unvalidated (the
     * loop only framed them), so a malformed one fails the stream as the loop would have.
     *
     * @throws ReplicationProtocolException if the message is malformed; nothing after it is delivered
     */
    @Override
    public void lend(ChangeView v) {
        lent.relation = null;
        try {
            ByteBuf read = v.borrowed;
            if (read != null) decoder.decode(read, v.borrowedIndex, v.borrowedLength, capture);
            else decoder.decode(v.bytes, 0, v.bytes.writerIndex(), capture);
        } catch (MalformedMessageException e) {
            throw new ReplicationProtocolException(e);
        }
        lent.view = v;
    }

    @Override
    public void giveBack(ChangeView v) {
        if (lent.view == v) lent.view = null; // a discarded view was never lent
        if (v.borrowed != null) {
            v.borrowed = null; // the read's bytes are not ours past the call; the view is not pooled
            return;
        }
        if (v.bytes.capacity() > ChangeView.KEEP_CAPACITY) v.bytes.clear().capacity(ChangeView.INITIAL_CAPACITY);
        free.offer(v); // full: the burst's extra view is left to the garbage collector
    }

    /** Keeps the decoder's view of the bytes being lent. */
    private static final class Capture implements PgOutputHandler {
        private final ChangeView.Lent lent;

        Capture(ChangeView.Lent lent) {
            this.lent = lent;
        }

        private void set(PgOutputMessage m) {
            lent.message = m;
        }

        private void set(PgOutputMessage m, RelationInfo r) {
            lent.message = m;
            lent.relation = r;
        }

        @Override public void onBegin(BeginMessage m) { set(m); }
        @Override public void onCommit(CommitMessage m) { set(m); }
        @Override public void onOrigin(OriginMessage m) { set(m); }
        @Override public void onRelation(RelationMessage m) { set(m, m.relation()); }
        @Override public void onType(TypeMessage m) { set(m); }
        @Override public void onInsert(InsertMessage m) { set(m, m.relation()); }
        @Override public void onUpdate(UpdateMessage m) { set(m, m.relation()); }
        @Override public void onDelete(DeleteMessage m) { set(m, m.relation()); }
        @Override public void onTruncate(TruncateMessage m) { set(m); }
        @Override public void onMessage(LogicalMessage m) { set(m); }
        @Override public void onStreamStart(StreamStartMessage m) { set(m); }
        @Override public void onStreamStop(StreamStopMessage m) { set(m); }
        @Override public void onStreamCommit(StreamCommitMessage m) { set(m); }
        @Override public void onStreamAbort(StreamAbortMessage m) { set(m); }
        @Override public void onBeginPrepare(BeginPrepareMessage m) { set(m); }
        @Override public void onPrepare(PrepareMessage m) { set(m); }
        @Override public void onStreamPrepare(PrepareMessage m) { set(m); }
        @Override public void onCommitPrepared(CommitPreparedMessage m) { set(m); }
        @Override public void onRollbackPrepared(RollbackPreparedMessage m) { set(m); }
    }

    /**
     * Copies each message's bytes into a view, with the positions of the XLogData it came in. Row
     * changes come undecoded ({@link RawChangeHandler}): the subscriber's decoder is their only one.
     */
    private final class Forwarder implements RawChangeHandler {
        private final Consumer<ChangeView> sink;
        /** The sink when it can deliver at once (event-loop delivery): then a message is copied only if it must wait. */
        private final ReadBatchSink<ChangeView> now;
        private long walStart;
        private long walEnd;
        /** Told just before the message it belongs to (a Relation or DDL capture message): goes into that message's view. */
        private io.pgrepl.client.schema.SchemaChange schemaChange;

        Forwarder(Consumer<ChangeView> sink) {
            this.sink = sink;
            this.now = sink instanceof ReadBatchSink<ChangeView> r && r.deliversNow() ? r : null;
        }

        @Override
        public void onXLogData(XLogData header) {
            walStart = header.walStart();
            walEnd = header.walEnd();
        }

        private void forward(PgOutputMessage m) {
            send(m.buffer(), m.offset(), m.length());
        }

        @Override
        public void onRawChange(ByteBuf buffer, int index, int length) {
            send(buffer, index, length);
        }

        @Override
        public void onSchemaChange(io.pgrepl.client.schema.SchemaChange change) {
            schemaChange = change;
        }

        private void send(ByteBuf buffer, int index, int length) {
            io.pgrepl.client.schema.SchemaChange c = schemaChange;
            schemaChange = null;
            ReadBatchSink<ChangeView> n = now;
            if (n == null) {
                sink.accept(take(buffer, index, length, walStart, walEnd, c));
            } else if (!n.deliverNow(borrow(buffer, index, length, walStart, walEnd, c))) {
                n.queue(take(buffer, index, length, walStart, walEnd, c));
            }
        }

        @Override public void onBegin(BeginMessage m) { forward(m); }
        @Override public void onCommit(CommitMessage m) { forward(m); }
        @Override public void onOrigin(OriginMessage m) { forward(m); }
        @Override public void onRelation(RelationMessage m) { forward(m); }
        @Override public void onType(TypeMessage m) { forward(m); }
        @Override public void onInsert(InsertMessage m) { forward(m); }
        @Override public void onUpdate(UpdateMessage m) { forward(m); }
        @Override public void onDelete(DeleteMessage m) { forward(m); }
        @Override public void onTruncate(TruncateMessage m) { forward(m); }
        @Override public void onMessage(LogicalMessage m) { forward(m); }
        @Override public void onStreamStart(StreamStartMessage m) { forward(m); }
        @Override public void onStreamStop(StreamStopMessage m) { forward(m); }
        @Override public void onStreamCommit(StreamCommitMessage m) { forward(m); }
        @Override public void onStreamAbort(StreamAbortMessage m) { forward(m); }
        @Override public void onBeginPrepare(BeginPrepareMessage m) { forward(m); }
        @Override public void onPrepare(PrepareMessage m) { forward(m); }
        @Override public void onStreamPrepare(PrepareMessage m) { forward(m); }
        @Override public void onCommitPrepared(CommitPreparedMessage m) { forward(m); }
        @Override public void onRollbackPrepared(RollbackPreparedMessage m) { forward(m); }
    }
}
