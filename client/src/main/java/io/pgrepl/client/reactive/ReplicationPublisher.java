package io.pgrepl.client.reactive;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.internal.reactive.DeliveryThread;
import io.pgrepl.client.internal.reactive.EarlyAcknowledger;
import io.pgrepl.client.internal.reactive.EventLoopExecutor;
import io.pgrepl.client.internal.reactive.FlowBuffer;
import io.pgrepl.client.internal.reactive.Lease;
import io.pgrepl.client.internal.reactive.ReadBatchSink;
import io.pgrepl.client.internal.reactive.StreamUpstream;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.LogicalStreamHandler;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * A cold, single-subscriber {@link Flow.Publisher} over one logical replication stream:
 * subscribing sends START_REPLICATION; demand drives socket reading through a bounded queue
 * (pause above the high watermark, resume below the low one, keepalives untouched); cancel stops
 * the stream cleanly (CopyDone, then the server's CopyDone/CommandComplete/ReadyForQuery).
 * The stream's end (error or completion) is delivered after the queued events.
 *
 * @param <T> the event type the {@link HandlerFactory} produces
 */
public final class ReplicationPublisher<T> implements Flow.Publisher<T> {
    /** Builds the event-loop handler that turns pgoutput views into events. */
    public interface HandlerFactory<T> {
        /**
         * @param sink         where events go (on the event loop; never blocks)
         * @param acknowledger the stream's acknowledge(lsn), usable from any thread
         * @return the handler; if it is {@link AutoCloseable} it is closed when the stream ends
         */
        LogicalStreamHandler create(Consumer<T> sink, LongConsumer acknowledger);
    }

    private final PgConnection connection;
    private final LogicalReplicationOptions options;
    private final FlowOptions flow;
    private final HandlerFactory<T> factory;
    private final Consumer<? super T> acknowledge;
    private final AtomicBoolean subscribed = new AtomicBoolean();
    private final CompletableFuture<Void> terminated = new CompletableFuture<>();
    private final AtomicReference<LogicalReplicationStream> stream = new AtomicReference<>();
    private volatile FlowBuffer<T> buffer;
    private java.util.function.ToLongFunction<? super T> weigher;
    private long maxWeight;
    private Consumer<? super T> discarder;
    private Lease<? super T> lease;

    /**
     * A publisher for one subscriber; the stream starts when it subscribes.
     *
     * @param connection  an idle connection opened with {@code replication=database}
     * @param options     the slot, publications and pgoutput options
     * @param flow        buffering, executor and acknowledgement
     * @param factory     makes the stream handler that turns messages into events for the sink
     * @param acknowledge how the auto-acknowledge option acknowledges one event (null: no auto-ack support)
     */
    public ReplicationPublisher(PgConnection connection, LogicalReplicationOptions options, FlowOptions flow,
                                HandlerFactory<T> factory, Consumer<? super T> acknowledge) {
        this.connection = Objects.requireNonNull(connection, "connection");
        this.options = Objects.requireNonNull(options, "options");
        this.flow = Objects.requireNonNull(flow, "flow");
        this.factory = Objects.requireNonNull(factory, "factory");
        this.acknowledge = acknowledge;
    }

    /**
     * Bounds the queue by weight too: socket reading pauses once the queued events weigh more
     * than {@code maxWeight} and resumes when they weigh at most a quarter of it. Call before
     * subscribing.
     *
     * @param w         the weight of one event, e.g. its heap bytes
     * @param maxWeight the weight above which socket reading pauses
     * @return this publisher
     */
    public ReplicationPublisher<T> weigher(java.util.function.ToLongFunction<? super T> w, long maxWeight) {
        this.weigher = w;
        this.maxWeight = maxWeight;
        return this;
    }

    /**
     * Releases events that never reach the subscriber (queued at cancel or failure), e.g. a
     * transaction's spill file. Call before subscribing.
     *
     * @param d releases one event
     * @return this publisher
     */
    public ReplicationPublisher<T> discarder(Consumer<? super T> d) {
        this.discarder = d;
        return this;
    }

    /** Items are reused: lent for one onNext, given back after it (the view publisher). Before subscribing. */
    ReplicationPublisher<T> lease(Lease<? super T> l) {
        this.lease = l;
        return this;
    }

    @Override
    public void subscribe(Flow.Subscriber<? super T> subscriber) {
        Objects.requireNonNull(subscriber, "subscriber"); // §1.9
        Executor executor = flow.executor() == null ? dedicatedThread()
                : flow.eventLoopDelivery() ? new EventLoopExecutor(connection.eventLoop()) : flow.executor();
        FlowBuffer<T> b = new FlowBuffer<>(subscriber, executor, flow.highWatermark(), flow.lowWatermark());
        if (!subscribed.compareAndSet(false, true)) {
            b.start();
            b.error(new IllegalStateException("this publisher allows one subscriber (one replication stream)"));
            return;
        }
        buffer = b;
        if (weigher != null) b.weigher(weigher, maxWeight);
        if (discarder != null) b.onDiscard(discarder);
        if (lease != null) b.lease(lease);
        if (flow.autoAcknowledge() && acknowledge != null) b.afterOnNext(acknowledge);
        b.start();
        EarlyAcknowledger ack = new EarlyAcknowledger();
        LogicalStreamHandler handler;
        LogicalReplicationStream s;
        try {
            // One wake of the subscriber's thread per socket read, not per event.
            handler = factory.create(new ReadBatchSink<>(b, connection.eventLoop()), ack);
            s = LogicalReplicationStream.start(connection, options, handler);
        } catch (RuntimeException e) {
            b.error(e);
            terminated.complete(null);
            return;
        }
        stream.set(s);
        ack.attach(s::acknowledge);
        b.upstream(new StreamUpstream(b, s));
        s.completion().whenComplete((v, e) -> {
            if (handler instanceof AutoCloseable c) {
                // Frees what the handler still holds (e.g. the spill files of transactions not yet
                // complete). Events already pushed own their resources: they are delivered below,
                // after which the subscriber releases them, or discarded on cancel.
                try {
                    c.close();
                } catch (Exception ignored) {
                    // nothing else to do if it fails
                }
            }
            if (e != null) b.error(e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
            else b.complete();
            terminated.complete(null);
        });
    }

    /**
     * The running stream once subscribed (for metrics, acknowledgedLsn), else null.
     *
     * @return the stream, or null
     */
    public LogicalReplicationStream stream() {
        return stream.get();
    }

    /**
     * Completes when the replication stream has ended (stopped, failed or never started).
     *
     * @return the stage; it never fails
     */
    public CompletionStage<Void> terminated() {
        return terminated;
    }

    /** {@return the events queued for the subscriber right now (0 before subscribe)} */
    public int queued() {
        FlowBuffer<T> b = buffer;
        return b == null ? 0 : b.queued();
    }

    /** {@return the most events ever queued at once: bounded by the high watermark plus one socket read} */
    public int peakQueued() {
        FlowBuffer<T> b = buffer;
        return b == null ? 0 : b.peakQueued();
    }

    /**
     * The most weight ever queued at once, as the publisher's weigher counts it: the copied bytes
     * of large views for {@code views(...)}, in-memory transactions' estimated heap for
     * {@code transactions(...)}; 0 without a weigher.
     *
     * @return the peak weight, bounded by the weight bound plus one item (or one socket read) past it
     */
    public long peakQueuedWeight() {
        FlowBuffer<T> b = buffer;
        return b == null ? 0 : b.peakQueuedWeight();
    }

    /** {@return how many times socket reading was paused for a slow subscriber} */
    public long pauses() {
        FlowBuffer<T> b = buffer;
        return b == null ? 0 : b.pauses();
    }

    private static Executor dedicatedThread() {
        // Parks when idle and ends after 5 s of it, so a finished publisher leaves nothing behind.
        return new DeliveryThread("pgrepl-flow-", 5_000);
    }
}
