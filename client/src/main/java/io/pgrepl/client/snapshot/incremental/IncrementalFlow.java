package io.pgrepl.client.snapshot.incremental;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.reactive.ChangeEvent;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.reactive.ReactiveReplication;
import io.pgrepl.client.reactive.RecordForwarder;
import io.pgrepl.client.reactive.ReplicationPublisher;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.codec.pgoutput.TupleView;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import io.pgrepl.codec.pgoutput.record.PgOutputRecords;
import java.util.function.Consumer;

/**
 * The Flow face: {@link ReactiveReplication#changes}'s events plus the incremental snapshots'
 * reads, as {@link ChangeEvent#snapshotRead()} events (an insert record at the chunk's high mark)
 * in stream order. Built on {@link ReactiveReplication#custom}; the engine is {@link #snapshots()}.
 */
public final class IncrementalFlow {
    private final IncrementalSnapshots snapshots;
    private final ReplicationPublisher<ChangeEvent> publisher;
    private volatile Consumer<ChangeEvent> sink;

    private IncrementalFlow(PgConnection connection, LogicalReplicationOptions options, FlowOptions flow, IncrementalOptions incremental) {
        Forwarder forwarder = new Forwarder();
        this.snapshots = IncrementalSnapshots.create(incremental, forwarder);
        this.publisher = ReactiveReplication.custom(connection, options, flow, (sink, ack) -> {
            this.sink = sink;
            forwarder.ack = ack;
            return snapshots;
        }, ChangeEvent::acknowledge);
    }

    /**
     * A publisher of changes and snapshot reads.
     *
     * @param connection  an idle connection opened with {@code replication=database}
     * @param options     the slot, publications and pgoutput options
     * @param flow        buffering, executor and acknowledgement
     * @param incremental the incremental snapshots' options
     * @return the face; subscribe to {@link #publisher()}, ask for snapshots with {@link #snapshots()}
     */
    public static IncrementalFlow changes(PgConnection connection, LogicalReplicationOptions options, FlowOptions flow,
                                          IncrementalOptions incremental) {
        return new IncrementalFlow(connection, options, flow, incremental);
    }

    /** {@return the publisher; the stream starts when it is subscribed to} */
    public ReplicationPublisher<ChangeEvent> publisher() {
        return publisher;
    }

    /** {@return the engine, to execute, pause, resume or stop snapshots and read the state} */
    public IncrementalSnapshots snapshots() {
        return snapshots;
    }

    /** Turns stream messages into change events and reads into snapshot-read events, for the sink. */
    private final class Forwarder extends RecordForwarder implements SnapshotReadHandler {
        volatile java.util.function.LongConsumer ack;

        @Override
        protected void onRecord(PgOutputRecord record, long walStart, long walEnd) {
            onRecord(record, walStart, walEnd, null);
        }

        @Override
        protected void onRecord(PgOutputRecord record, long walStart, long walEnd, RelationInfo relation,
                                io.pgrepl.client.schema.SchemaChange schemaChange) {
            sink.accept(new ChangeEvent(record, walStart, walEnd, ack, relation, false, schemaChange));
        }

        @Override
        public void onSnapshotRead(TupleView row, long position) {
            RelationInfo rel = row.relation();
            sink.accept(new ChangeEvent(new Insert(0, rel.oid(), PgOutputRecords.tuple(row)), position, position, null, rel, true,
                    takeSchemaChange()));
        }
    }
}
