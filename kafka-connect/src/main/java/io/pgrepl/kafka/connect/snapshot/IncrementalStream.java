package io.pgrepl.kafka.connect.snapshot;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.reactive.RecordForwarder;
import io.pgrepl.client.reactive.ReplicationPublisher;
import io.pgrepl.client.snapshot.incremental.IncrementalOptions;
import io.pgrepl.client.snapshot.incremental.IncrementalSnapshots;
import io.pgrepl.client.snapshot.incremental.SnapshotReadHandler;
import io.pgrepl.client.snapshot.incremental.TableProgress;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.tx.Transaction;
import io.pgrepl.client.tx.TransactionAssembler;
import io.pgrepl.client.tx.TxEvent;
import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.codec.pgoutput.TupleView;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import io.pgrepl.codec.pgoutput.record.PgOutputRecords;
import io.pgrepl.kafka.connect.offsets.SignalOffsets;
import io.pgrepl.kafka.connect.signals.KafkaSignals;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The task's stream under the library's incremental snapshot engine: the same assembled
 * transactions as without it, plus each chunk's reads as one item, in stream order (the engine
 * calls back between transactions, on the event loop). Every item carries the engine's resumable
 * state as of its place in the stream, which goes into the source offsets: a transaction's is taken
 * at its Commit, a chunk's right after its reads, so an offset never claims a chunk whose reads come
 * after it. One engine lives as long as the task; each (re)connection gets a publisher and an
 * assembler of its own.
 */
public final class IncrementalStream {
    /** What the stream hands the task's builder thread. */
    public sealed interface Item permits Tx, Reads {}

    /** A transaction (or standalone message) and the state as of its commit. */
    public record Tx(TxEvent event, String state) implements Item {}

    /** One read row: the table and a copy of the row. */
    public record Read(RelationInfo relation, Insert row) {}

    /**
     * A chunk's reads at {@code position} (its high watermark; none for a progress without reads),
     * the table's progress after it, and the state once it is emitted.
     */
    public record Reads(List<Read> rows, long position, TableProgress progress, String state) implements Item {}

    private final IncrementalSnapshots engine;
    private final Forwarder forwarder = new Forwarder();
    /**
     * The kafka signal channel's next offset to read, -1 before any; moved on the event loop once the
     * engine applied what came before it (see {@link KafkaSignals}).
     */
    private final AtomicLong nextSignal = new AtomicLong(-1);

    public IncrementalStream(IncrementalOptions options) {
        this.engine = IncrementalSnapshots.create(options, forwarder);
    }

    /** The kafka signal channel's position, read and moved on the event loop (stored with the state). */
    public AtomicLong nextSignal() {
        return nextSignal;
    }

    /** The state to store: the engine's and the signal position, both as of this point on the event loop. */
    private String state() {
        return SignalOffsets.with(engine.state(), nextSignal.get());
    }

    /** {@return the engine: execute, stop, pause and resume snapshots} */
    public IncrementalSnapshots engine() {
        return engine;
    }

    /** A publisher for one connection; the engine moves to it when it starts. */
    public ReplicationPublisher<Item> publisher(PgConnection connection, LogicalReplicationOptions options, FlowOptions flow) {
        return new ReplicationPublisher<Item>(connection, options, flow, (sink, ack) -> {
            forwarder.attach(sink, new TransactionAssembler(flow.assembler(), ack, ev -> sink.accept(new Tx(ev, state()))));
            return engine;
        }, null)
                .weigher(i -> i instanceof Tx tx && tx.event() instanceof Transaction t && !t.spilled() ? t.estimatedBytes() : 0,
                        Math.max(1, flow.assembler().memoryBudgetBytes()))
                .discarder(i -> {
                    if (i instanceof Tx tx && tx.event() instanceof Transaction t) t.close();
                });
    }

    /** Closes the engine's chunk connections and the last assembler (after the stream stopped). */
    public void close() {
        engine.close();
        forwarder.attach(null, null);
    }

    /** The engine's inner handler: stream messages to the assembler, reads to chunk items. */
    private final class Forwarder extends RecordForwarder implements SnapshotReadHandler {
        private volatile Consumer<Item> sink;
        private volatile TransactionAssembler assembler;
        private List<Read> reads = new ArrayList<>();
        private long position;

        synchronized void attach(Consumer<Item> s, TransactionAssembler a) {
            TransactionAssembler old = assembler;
            if (old != null) old.close(); // the previous connection's stream has ended: nothing more reaches it
            sink = s;
            assembler = a;
        }

        @Override
        public void onStarted(LogicalReplicationStream stream) {
            reads = new ArrayList<>();
            assembler.onNewConnection(stream.dedupFloor());
        }

        @Override
        protected void onRecord(PgOutputRecord record, long walStart, long walEnd) {
            assembler.accept(record);
        }

        @Override
        public void onSnapshotRead(TupleView row, long position) {
            RelationInfo rel = row.relation();
            reads.add(new Read(rel, new Insert(0, rel.oid(), PgOutputRecords.tuple(row))));
            this.position = position;
        }

        @Override
        public void onSnapshotProgress(TableProgress progress) {
            // Called right after a chunk's reads (and on every other change of a table's status); the
            // state already counts that chunk.
            List<Read> rows = reads;
            reads = new ArrayList<>();
            Consumer<Item> s = sink;
            if (s != null) s.accept(new Reads(rows, rows.isEmpty() ? 0 : position, progress, state()));
        }
    }
}
