package io.pgrepl.client.snapshot.incremental;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.blocking.BlockingChanges;
import io.pgrepl.client.reactive.ChangeEvent;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.stream.LogicalReplicationOptions;

/**
 * The blocking face: {@link BlockingChanges#open}'s events plus the incremental snapshots' reads,
 * each a {@link ChangeEvent#snapshotRead()} event (an insert record at its chunk's high mark) in
 * stream order, from one iterator. Built on {@link IncrementalFlow}; acknowledging works as there:
 * a read's {@link ChangeEvent#acknowledge()} does nothing (the transactions around it carry the
 * positions), a change's confirms its position.
 *
 * <pre>{@code
 * try (IncrementalBlocking face = IncrementalBlocking.open(conn, options, FlowOptions.defaults(), incremental, 256)) {
 *     face.snapshots().execute("public.orders");
 *     BlockingChanges<ChangeEvent> it = face.changes();
 *     while (it.hasNext()) { ChangeEvent e = it.next(); ...; e.acknowledge(); }
 * }
 * }</pre>
 */
public final class IncrementalBlocking implements AutoCloseable {
    private final IncrementalFlow flow;
    private final BlockingChanges<ChangeEvent> changes;

    private IncrementalBlocking(IncrementalFlow flow, int prefetch) {
        this.flow = flow;
        this.changes = BlockingChanges.of(flow.publisher(), prefetch);
    }

    /**
     * Opens the iterator; the stream starts at once.
     *
     * @param connection  an idle connection opened with {@code replication=database}
     * @param options     the slot, publications and pgoutput options
     * @param flow        acknowledgement and buffering; without an executor, events are queued
     *                    for the consumer where the stream signals them, as {@link BlockingChanges#open} does
     * @param incremental the incremental snapshots' options
     * @param prefetch    how many events are requested ahead of the consumer
     * @return the face: {@link #changes()} to iterate, {@link #snapshots()} to execute snapshots
     */
    public static IncrementalBlocking open(PgConnection connection, LogicalReplicationOptions options, FlowOptions flow,
                                           IncrementalOptions incremental, int prefetch) {
        return new IncrementalBlocking(IncrementalFlow.changes(connection, options, BlockingChanges.direct(flow), incremental), prefetch);
    }

    /** {@return the iterator over changes and snapshot reads; one consumer thread at a time} */
    public BlockingChanges<ChangeEvent> changes() {
        return changes;
    }

    /** {@return the engine, to execute, pause, resume or stop snapshots and read the state} */
    public IncrementalSnapshots snapshots() {
        return flow.snapshots();
    }

    /** Stops the stream and waits for it (see {@link BlockingChanges#close()}), then closes the engine's connections. */
    @Override
    public void close() {
        try {
            changes.close();
        } finally {
            flow.snapshots().close();
        }
    }
}
