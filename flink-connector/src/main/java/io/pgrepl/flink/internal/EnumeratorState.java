package io.pgrepl.flink.internal;

import java.util.List;
import java.util.Map;

/**
 * The enumerator's checkpoint: the snapshot splits not yet handed out, the finished ones with their
 * pieces (what the stream split's coverage is built from), and how far the stream is.
 *
 * @param planned        whether the slot exists and the tables were planned
 * @param streamStart    the position the stream split starts at (0: the slot's confirmed position)
 * @param stopLsn        startup mode snapshot: where the stream ends; 0 otherwise
 * @param totalSplits    how many snapshot splits were planned
 * @param pending        snapshot splits not assigned to a reader
 * @param finished       finished snapshot splits a completed checkpoint holds, by id
 * @param streamReady    a checkpoint completed after every snapshot split finished: the stream may start
 * @param streamAssigned the stream split is with a reader
 * @param returnedStream a stream split a failed reader gave back (its position as assigned), or null
 * @param suspended      the stream split stopped for tables to be read again, or null
 * @param epoch          how many suspensions were acted on (split ids of later reads carry it)
 * @param replanned      the tables {@code suspended} asks for were planned: their splits are in {@code pending}
 */
public record EnumeratorState(boolean planned, long streamStart, long stopLsn, int totalSplits, List<SnapshotSplit> pending,
                              Map<String, SnapshotSplit> finished, boolean streamReady, boolean streamAssigned,
                              StreamSplit returnedStream, StreamSplit suspended, int epoch, boolean replanned) {
    /** Copies the collections. */
    public EnumeratorState {
        pending = List.copyOf(pending);
        finished = Map.copyOf(finished);
    }

    /** {@return the state of a source that has not started} */
    public static EnumeratorState initial() {
        return new EnumeratorState(false, 0, 0, 0, List.of(), Map.of(), false, false, null, null, 0, false);
    }
}
