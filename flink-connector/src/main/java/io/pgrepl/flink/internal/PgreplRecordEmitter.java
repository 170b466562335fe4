package io.pgrepl.flink.internal;

import io.pgrepl.flink.PgreplDeserializer;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.util.Collector;

/** Emits a change through the deserializer and moves its split's position with it, on the task thread. */
final class PgreplRecordEmitter<T> implements RecordEmitter<Element, T, SplitState> {
    private final PgreplDeserializer<T> deserializer;
    private final ReaderMetrics metrics;
    private final OutputCollector<T> collector = new OutputCollector<>();

    PgreplRecordEmitter(PgreplDeserializer<T> deserializer, ReaderMetrics metrics) {
        this.deserializer = deserializer;
        this.metrics = metrics;
    }

    @Override
    public void emitRecord(Element e, SourceOutput<T> output, SplitState state) throws Exception {
        collector.output = output;
        if (e instanceof Element.Read r) {
            deserializer.deserialize(r.change(), collector);
            SplitState.Snapshot s = (SplitState.Snapshot) state;
            s.last = r;
            metrics.snapshotRow();
        } else if (e instanceof Element.PieceDone d) {
            SplitState.Snapshot s = (SplitState.Snapshot) state;
            s.pieces.add(d.piece());
            s.last = null;
            if (d.last()) s.finished = true;
        } else if (e instanceof Element.Change c) {
            deserializer.deserialize(c.change(), collector);
            SplitState.Stream s = (SplitState.Stream) state;
            s.partialEndLsn = c.txEndLsn();
            s.partialCount = c.ordinal();
            metrics.change(c.change().commitTimeMicros());
        } else if (e instanceof Element.TxDone d) {
            SplitState.Stream s = (SplitState.Stream) state;
            s.lsn = d.endLsn();
            s.partialEndLsn = 0;
            s.partialCount = 0;
            s.lastCommitMicros = d.commitTimeMicros();
            if (d.suspend() != null) s.suspended = d.suspend();
            metrics.transaction(d.commitTimeMicros());
        } else if (e instanceof Element.Advance a) {
            SplitState.Stream s = (SplitState.Stream) state;
            if (s.partialEndLsn == 0 && Long.compareUnsigned(a.lsn(), s.lsn) > 0) s.lsn = a.lsn();
        } else if (e instanceof Element.Hold h) {
            ((SplitState.Stream) state).held.put(new HeldKey(h.delete().table(), h.delete().key()), h.delete());
        } else if (e instanceof Element.Release r) {
            ((SplitState.Stream) state).held.remove(r.key());
        } else if (e instanceof Element.Flush f) {
            deserializer.deserialize(f.delete().change(), collector);
            ((SplitState.Stream) state).held.remove(new HeldKey(f.delete().table(), f.delete().key()));
            metrics.change(f.delete().commitTimeMicros());
        } else if (e instanceof Element.Suspend r) {
            ((SplitState.Stream) state).suspended = r.request();
        }
    }

    private static final class OutputCollector<T> implements Collector<T> {
        SourceOutput<T> output;

        @Override
        public void collect(T record) {
            output.collect(record);
        }

        @Override
        public void close() {}
    }
}
