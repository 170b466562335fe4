package io.pgrepl.flink.internal;

import io.pgrepl.flink.PgreplDeserializer;
import io.pgrepl.flink.PgreplFlinkException;
import org.apache.flink.configuration.CheckpointingOptions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SourceReaderContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.SingleThreadMultiplexSourceReaderBase;

/**
 * A reader: snapshot splits and the stream split come from the enumerator on request; the fetcher
 * thread reads them ({@link PgreplSplitReader}), this task thread emits and keeps the positions.
 *
 * <p>A finished snapshot split is reported to the enumerator with its pieces and kept in this
 * reader's state until the enumerator acknowledges that a completed checkpoint of its own holds it
 * (so neither side's checkpoint can lose it), and reported again whenever the enumerator asks (it
 * does when this reader registers again after a restart). The stream's position at each checkpoint is
 * remembered, and the slot is confirmed for it once that checkpoint is complete, lagging
 * {@code scan.lsn-commit.checkpoints-num-delay} completed checkpoints so that the ones before stay
 * restorable.
 */
public final class PgreplSourceReader<T> extends SingleThreadMultiplexSourceReaderBase<Element, T, PgreplSplit, SplitState> {
    private final Settings settings;
    private final StreamLink link;
    /** Finished snapshot splits not yet acknowledged by the enumerator, by id. */
    private final Map<String, SnapshotSplit> unacknowledged = new LinkedHashMap<>();
    /** The stream's whole-transaction position at each checkpoint not yet complete. */
    private final TreeMap<Long, Long> positions = new TreeMap<>();
    /** Positions of completed checkpoints, oldest first, waiting out the confirmation delay. */
    private final List<Long> completed = new ArrayList<>();
    private SplitState.Stream streamState;
    /** The stream split stopped for tables to be read again, until the enumerator acknowledges it. */
    private StreamSplit suspension;
    private final PgreplDeserializer<T> deserializer;

    PgreplSourceReader(Settings settings, PgreplDeserializer<T> deserializer, StreamLink link, ReaderMetrics metrics,
                       Configuration config, SourceReaderContext context) {
        super(() -> new PgreplSplitReader(settings, link), new PgreplRecordEmitter<>(deserializer, metrics), config, context);
        this.settings = settings;
        this.link = link;
        this.deserializer = deserializer;
    }

    /** Creates a reader (the metrics need the link before the base class exists). */
    public static <T> PgreplSourceReader<T> create(Settings settings, PgreplDeserializer<T> deserializer, SourceReaderContext context) {
        StreamLink link = new StreamLink();
        ReaderMetrics metrics = new ReaderMetrics(context.metricGroup(), link);
        return new PgreplSourceReader<>(settings, deserializer, link, metrics, context.getConfiguration(), context);
    }

    @Override
    public void start() {
        if (CheckpointingOptions.isUnalignedCheckpointEnabled(context.getConfiguration())) {
            throw new PgreplFlinkException("the pgrepl source needs aligned checkpoints: the stream split starts once a checkpoint"
                    + " completed after the last snapshot split, which orders every snapshot row before the stream's changes"
                    + " only when barriers are aligned. Turn execution.checkpointing.unaligned.enabled off");
        }
        try {
            deserializer.open();
        } catch (Exception e) {
            throw new IllegalStateException("the deserializer failed to open", e);
        }
        super.start();
        if (getNumberOfCurrentlyAssignedSplits() == 0) context.sendSplitRequest();
    }

    @Override
    public void addSplits(List<PgreplSplit> splits) {
        List<PgreplSplit> toRead = new ArrayList<>(splits.size());
        List<SnapshotSplit> done = new ArrayList<>();
        for (PgreplSplit s : splits) {
            if (s instanceof SnapshotSplit snap && snap.finished()) done.add(snap);
            else if (s instanceof StreamSplit st && st.suspended() != null) reportSuspension(st); // restored: report again
            else toRead.add(s);
        }
        if (!done.isEmpty()) report(done);
        if (!toRead.isEmpty()) super.addSplits(toRead);
    }

    @Override
    protected SplitState initializedState(PgreplSplit split) {
        if (split instanceof StreamSplit s) {
            streamState = new SplitState.Stream(s);
            return streamState;
        }
        return new SplitState.Snapshot((SnapshotSplit) split);
    }

    @Override
    protected PgreplSplit toSplitType(String splitId, SplitState state) {
        return state.toSplit();
    }

    @Override
    protected void onSplitFinished(Map<String, SplitState> finished) {
        List<SnapshotSplit> done = new ArrayList<>();
        boolean streamEnded = false;
        for (SplitState s : finished.values()) {
            if (s instanceof SplitState.Snapshot snap) {
                SnapshotSplit split = snap.toSplit();
                done.add(split.finished() ? split : split.with(split.pieces(), true));
            } else if (s instanceof SplitState.Stream st && st.suspended != null) {
                streamState = null;
                reportSuspension(st.toSplit());
            } else {
                streamEnded = true;
            }
        }
        if (!done.isEmpty()) report(done);
        if (streamEnded) {
            streamState = null;
            context.sendSourceEventToCoordinator(new StreamFinishedEvent());
        }
        context.sendSplitRequest();
    }

    private void report(List<SnapshotSplit> done) {
        for (SnapshotSplit s : done) unacknowledged.put(s.id(), s);
        context.sendSourceEventToCoordinator(new SplitsFinishedEvent(List.copyOf(done)));
    }

    private void reportSuspension(StreamSplit s) {
        suspension = s;
        context.sendSourceEventToCoordinator(new StreamSuspendedEvent(s));
    }

    @Override
    public void handleSourceEvents(SourceEvent event) {
        if (event instanceof SplitsAckEvent ack) {
            ack.ids().forEach(unacknowledged::remove);
            if (ack.ids().contains(StreamSplit.ID)) suspension = null;
        } else if (event instanceof ReportAgainEvent) {
            if (!unacknowledged.isEmpty()) context.sendSourceEventToCoordinator(new SplitsFinishedEvent(List.copyOf(unacknowledged.values())));
            if (suspension != null) context.sendSourceEventToCoordinator(new StreamSuspendedEvent(suspension));
        } else {
            super.handleSourceEvents(event);
        }
    }

    @Override
    public List<PgreplSplit> snapshotState(long checkpointId) {
        List<PgreplSplit> state = new ArrayList<>();
        for (PgreplSplit s : super.snapshotState(checkpointId)) {
            // restored, a split in progress reads on where rows may have been emitted after this checkpoint (a sink may keep them)
            state.add(s instanceof SnapshotSplit snap && !snap.finished() ? snap.readAgain() : s);
        }
        state.addAll(unacknowledged.values());
        if (suspension != null) state.add(suspension);
        if (streamState != null) positions.put(checkpointId, streamState.lsn);
        return state;
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) throws Exception {
        super.notifyCheckpointComplete(checkpointId);
        Map.Entry<Long, Long> e = positions.floorEntry(checkpointId);
        if (e == null) return;
        positions.headMap(checkpointId, true).clear();
        completed.add(e.getValue());
        int delay = settings.lsnCommitDelay();
        if (completed.size() > delay) {
            long lsn = completed.get(completed.size() - 1 - delay);
            completed.subList(0, completed.size() - delay).clear();
            link.confirm(lsn);
        }
    }
}
