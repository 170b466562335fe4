package io.pgrepl.client.snapshot;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.internal.reactive.EarlyAcknowledger;
import io.pgrepl.client.internal.reactive.FlowBuffer;
import io.pgrepl.client.internal.reactive.StreamUpstream;
import io.pgrepl.client.reactive.ChangeEvent;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.reactive.RecordForwarder;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.codec.pgoutput.TupleView;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import io.pgrepl.codec.pgoutput.record.PgOutputRecords;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The reactive face of an initial snapshot: one {@link ChangeEvent} per snapshot row
 * ({@link ChangeEvent#snapshotRead()}, an Insert record carrying its relation and the consistent
 * point), then, for {@link InitialSnapshotMode#INITIAL}, one per streamed pgoutput message from the
 * consistent point on. Cold, single subscriber. Memory stays bounded while copying as while
 * streaming: above the high watermark every worker's socket stops reading (Netty autoRead), below
 * the low one they read again. Cancelling during the copy fails the snapshot and cleans up (see
 * {@link InitialSnapshot#copy}); during the stream it stops the stream.
 */
public final class SnapshotPublisher implements Flow.Publisher<ChangeEvent> {
    private final PgConnection replication;
    private final InitialSnapshotMode mode;
    private final SnapshotOptions options;
    private final FlowOptions flow;
    private final AtomicBoolean subscribed = new AtomicBoolean();
    private final CompletableFuture<SnapshotResult> snapshot = new CompletableFuture<>();
    private volatile LogicalReplicationStream stream;
    private volatile FlowBuffer<ChangeEvent> buffer;

    /**
     * A publisher for one subscriber; the slot is created and the copy starts when it subscribes.
     *
     * @param replication an idle connection opened with {@code replication=database}
     * @param mode        INITIAL (copy, then stream) or INITIAL_ONLY
     * @param options     the slot to create, the stream that follows, workers and progress
     * @param flow        buffering, executor and acknowledgement
     * @throws IllegalArgumentException for mode NEVER
     */
    public SnapshotPublisher(PgConnection replication, InitialSnapshotMode mode, SnapshotOptions options, FlowOptions flow) {
        this.replication = Objects.requireNonNull(replication, "replication");
        this.mode = Objects.requireNonNull(mode, "mode");
        this.options = Objects.requireNonNull(options, "options");
        this.flow = Objects.requireNonNull(flow, "flow");
        if (mode == InitialSnapshotMode.NEVER) {
            throw new IllegalArgumentException("mode NEVER copies nothing: use ReactiveReplication.changes");
        }
    }

    /**
     * Completes with the snapshot's result once the last row was queued (fails with its failure).
     *
     * @return the snapshot's result
     */
    public CompletionStage<SnapshotResult> snapshot() {
        return snapshot;
    }

    /**
     * The stream once it started (INITIAL), else null.
     *
     * @return the stream, or null
     */
    public LogicalReplicationStream stream() {
        return stream;
    }

    /** {@return the most events ever queued at once: the high watermark plus what the sockets had already read} */
    public int peakQueued() {
        FlowBuffer<ChangeEvent> b = buffer;
        return b == null ? 0 : b.peakQueued();
    }

    /** {@return how many times reading was paused for a slow subscriber} */
    public long pauses() {
        FlowBuffer<ChangeEvent> b = buffer;
        return b == null ? 0 : b.pauses();
    }

    @Override
    public void subscribe(Flow.Subscriber<? super ChangeEvent> subscriber) {
        Objects.requireNonNull(subscriber, "subscriber");
        Executor executor = flow.executor() != null ? flow.executor() : dedicatedThread();
        FlowBuffer<ChangeEvent> b = new FlowBuffer<>(subscriber, executor, flow.highWatermark(), flow.lowWatermark());
        if (!subscribed.compareAndSet(false, true)) {
            b.start();
            b.error(new IllegalStateException("this publisher allows one subscriber"));
            return;
        }
        buffer = b;
        if (flow.autoAcknowledge()) b.afterOnNext(ChangeEvent::acknowledge);
        b.start();
        SnapshotRun run = new SnapshotRun(replication, options, (row, lsn) -> b.push(read(row, lsn)));
        b.upstream(new FlowBuffer.Upstream() {
            @Override
            public void pause() {
                run.paused(b.pauseWanted());
            }

            @Override
            public void resume() {
                run.paused(b.pauseWanted());
            }

            @Override
            public void cancel() {
                run.cancel();
            }
        });
        run.run().whenComplete((r, e) -> {
            if (e != null) {
                Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
                snapshot.completeExceptionally(cause);
                b.error(cause);
                return;
            }
            snapshot.complete(r);
            if (mode == InitialSnapshotMode.INITIAL_ONLY || b.isCancelled()) {
                b.complete();
                return;
            }
            // Under an existing slot the stream starts where the caller's options say (0: the slot's own position).
            startStream(b, options.existingSlot() ? options.stream().startLsn() : r.consistentPoint());
        });
    }

    private static ChangeEvent read(TupleView row, long lsn) {
        RelationInfo rel = row.relation();
        return ChangeEvent.snapshotRead(new Insert(0, rel.oid(), PgOutputRecords.tuple(row)), rel, lsn);
    }

    private void startStream(FlowBuffer<ChangeEvent> b, long from) {
        LogicalReplicationOptions o = options.stream().toBuilder().startLsn(from).build();
        // The stream may deliver, and the subscriber acknowledge, before start() has returned.
        EarlyAcknowledger acknowledger = new EarlyAcknowledger();
        LogicalReplicationStream s;
        try {
            s = LogicalReplicationStream.start(replication, o, new RecordForwarder() {
                @Override
                protected void onRecord(PgOutputRecord record, long walStart, long walEnd) {
                    onRecord(record, walStart, walEnd, null);
                }

                @Override
                protected void onRecord(PgOutputRecord record, long walStart, long walEnd, RelationInfo relation,
                                        io.pgrepl.client.schema.SchemaChange schemaChange) {
                    b.push(new ChangeEvent(record, walStart, walEnd, acknowledger, relation, false, schemaChange));
                }
            });
        } catch (RuntimeException e) {
            b.error(e);
            return;
        }
        acknowledger.attach(s::acknowledge);
        stream = s;
        b.upstream(new StreamUpstream(b, s));
        s.completion().whenComplete((v, e) -> {
            if (e != null) b.error(e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
            else b.complete();
        });
    }

    private static Executor dedicatedThread() {
        ThreadPoolExecutor e = new ThreadPoolExecutor(1, 1, 5, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), r -> {
            Thread t = new Thread(r, "pgrepl-snapshot-flow");
            t.setDaemon(true);
            return t;
        });
        e.allowCoreThreadTimeOut(true);
        return e;
    }
}
