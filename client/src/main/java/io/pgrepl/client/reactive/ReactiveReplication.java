package io.pgrepl.client.reactive;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.tx.Transaction;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.tx.TransactionAssembler;
import io.pgrepl.client.tx.TxEvent;
import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;

import java.util.function.Consumer;

/**
 * The {@link java.util.concurrent.Flow} face: publishers of copied change events, one per pgoutput
 * message or one per assembled transaction. Adapt with e.g.
 * {@code reactor.adapter.JdkFlowAdapter.flowPublisherToFlux}. The connection must be a
 * {@code replication=database} connection that is not streaming yet.
 *
 * <p>Nothing is acknowledged unless the application calls {@code acknowledge()} on an event, or
 * sets {@link FlowOptions#autoAcknowledge()}.
 */
public final class ReactiveReplication {
    private ReactiveReplication() {}

    /**
     * One {@link ChangeEvent} per pgoutput message, in server order.
     *
     * @param connection an idle connection opened with {@code replication=database}
     * @param options    the slot, publications and pgoutput options
     * @param flow       buffering, executor and acknowledgement
     * @return a publisher for one subscriber; the stream starts when it subscribes
     */
    public static ReplicationPublisher<ChangeEvent> changes(PgConnection connection, LogicalReplicationOptions options,
                                                            FlowOptions flow) {
        return new ReplicationPublisher<>(connection, options, flow, (sink, ack) -> new RecordForwarder() {
            @Override
            protected void onRecord(PgOutputRecord record, long walStart, long walEnd) {
                onRecord(record, walStart, walEnd, null);
            }

            @Override
            protected void onRecord(PgOutputRecord record, long walStart, long walEnd, RelationInfo relation,
                                    io.pgrepl.client.schema.SchemaChange schemaChange) {
                sink.accept(new ChangeEvent(record, walStart, walEnd, ack, relation, false, schemaChange));
            }
        }, ChangeEvent::acknowledge);
    }

    /**
     * One {@link ChangeView} per pgoutput message, in server order: the same messages as
     * {@link #changes}, read through the handler face's views on the subscriber's thread instead of
     * copied into records. Views are recycled, so a steady stream allocates nothing per message, and
     * the heap the face touches stays small on any garbage collector's defaults.
     *
     * <p>A view is valid only until the subscriber's {@code onNext} returns (see {@link ChangeView}):
     * keep {@link ChangeView#toEvent()} for anything needed later.
     *
     * @param connection an idle connection opened with {@code replication=database}
     * @param options    the slot, publications and pgoutput options
     * @param flow       buffering, executor and acknowledgement
     * @return a publisher for one subscriber; the stream starts when it subscribes
     */
    public static ReplicationPublisher<ChangeView> views(PgConnection connection, LogicalReplicationOptions options,
                                                         FlowOptions flow) {
        ChangeViewPool pool = new ChangeViewPool(flow.highWatermark());
        return new ReplicationPublisher<>(connection, options, flow, pool::forwarder, ChangeView::acknowledge).lease(pool)
                .weigher(ReactiveReplication::copiedBytes, VIEW_QUEUE_BYTES);
    }

    /**
     * The bytes of large messages that {@link #views} may hold queued for a subscriber without
     * demand before socket reading pauses: 8 MiB. Small messages (under 2 KiB each) are bounded by
     * the high watermark alone (1024 of them, at most 2 MiB by default); a large one counts its
     * copy, so a slow subscriber of wide rows never holds a high watermark's worth of them.
     */
    public static final long VIEW_QUEUE_BYTES = 8L << 20;

    /** A queued view's copy if it is large enough to outgrow the count bound; 0 keeps the queue's per-item cost down. */
    private static long copiedBytes(ChangeView v) {
        int n = v.bytes.writerIndex();
        return n >= ChangeView.KEEP_CAPACITY ? n : 0;
    }

    /**
     * One {@link TxEvent} per transaction (in commit order), non-transactional message or two-phase
     * outcome, assembled by a {@link TransactionAssembler} with {@link FlowOptions#assembler()}.
     * A spilled transaction's file lives until the transaction is acknowledged or closed, even past
     * the stream's end (queued transactions stay readable); transactions dropped undelivered at
     * cancel are closed here, and one the subscriber received but never closed loses its file when
     * it is garbage collected. Transactions still being assembled lose theirs when the stream ends.
     *
     * <p>Heap stays near twice the assembler's memory budget: the budget for changes still being
     * assembled, and the same again for delivered in-memory transactions waiting for demand
     * (beyond it socket reading pauses, like the event-count watermark).
     *
     * <p>The assembler runs on the connection's event loop, so spill files (transactions beyond
     * the budget) are written there, blocking that loop on disk I/O: see {@link io.pgrepl.client.tx.AssemblerOptions}
     * (a budget large enough for the usual transaction; a private event loop group for streams
     * that may see big ones).
     *
     * @param connection an idle connection opened with {@code replication=database}
     * @param options    the slot, publications and pgoutput options
     * @param flow       buffering, executor, acknowledgement and the assembler's options
     * @return a publisher for one subscriber; the stream starts when it subscribes
     */
    public static ReplicationPublisher<TxEvent> transactions(PgConnection connection, LogicalReplicationOptions options,
                                                             FlowOptions flow) {
        return new ReplicationPublisher<>(connection, options, flow,
                (sink, ack) -> new AssemblingHandler(new TransactionAssembler(flow.assembler(), ack, sink)),
                TxEvent::acknowledge)
                .weigher(ReactiveReplication::heapWeight, Math.max(1, flow.assembler().memoryBudgetBytes()))
                .discarder(e -> {
                    if (e instanceof Transaction t) t.close(); // its spill file; nothing is acknowledged
                });
    }

    private static long heapWeight(TxEvent e) {
        return e instanceof Transaction t && !t.spilled() ? t.estimatedBytes() : 0;
    }

    /** Feeds the assembler on the event loop; closing it deletes the remaining spill files. */
    private static final class AssemblingHandler extends RecordForwarder implements AutoCloseable {
        private final TransactionAssembler assembler;

        AssemblingHandler(TransactionAssembler assembler) {
            this.assembler = assembler;
        }

        @Override
        public void onStarted(LogicalReplicationStream stream) {
            assembler.onNewConnection(stream.dedupFloor());
        }

        @Override
        protected void onRecord(PgOutputRecord record, long walStart, long walEnd) {
            assembler.accept(record);
        }

        @Override
        public void close() {
            // The event loop may still be inside accept(): hop there is not possible from here,
            // but the stream has ended, so no more records arrive.
            assembler.close();
        }
    }

    /**
     * A publisher of whatever {@code factory}'s handler produces (e.g. rendered JSON lines).
     *
     * @param <T>         the event type
     * @param connection  an idle connection opened with {@code replication=database}
     * @param options     the slot, publications and pgoutput options
     * @param flow        buffering, executor and acknowledgement
     * @param factory     makes the stream handler that turns messages into events for the sink
     * @param acknowledge acknowledges one event for the auto-acknowledge option, or null
     * @return a publisher for one subscriber; the stream starts when it subscribes
     */
    public static <T> ReplicationPublisher<T> custom(PgConnection connection, LogicalReplicationOptions options,
                                                     FlowOptions flow, ReplicationPublisher.HandlerFactory<T> factory,
                                                     Consumer<? super T> acknowledge) {
        return new ReplicationPublisher<>(connection, options, flow, factory, acknowledge);
    }

}
