package io.pgrepl.kafka.connect.signals;

import io.pgrepl.kafka.connect.offsets.AckTracker;
import io.pgrepl.kafka.connect.offsets.Position;
import io.pgrepl.kafka.connect.offsets.SignalOffsets;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * How far the kafka signal channel's consumer group may be committed: to a signal position that
 * Connect's committed source offsets hold. Each record handed over carries the channel's position
 * in its offset ({@link SignalOffsets}, as of the record's place in the stream); Connect commits
 * the offset of the last record of the in-order prefix it has acknowledged, so the position of that
 * prefix's last record is what a restart would read from the offsets. Committing the group further
 * would let a task that starts without stored offsets (a first start, offsets never flushed) seek
 * past a signal whose records never reached Kafka.
 *
 * <p>Records sit in runs of one position, in the order poll() returned them (positions never go
 * back: the channel's moves only forward). A run leaves at the head once all its records were
 * acknowledged; the position of the last run to leave is a floor of the committed one (records of
 * the head run may be committed already, and are not counted). As with the slot's confirmations
 * ({@link AckTracker#offsetsCommitted}), what was wholly acknowledged at one offset commit is
 * committed to the group at the next. Task thread and producer callbacks: synchronized.
 */
public final class SignalCommits {
    /** {position, records not yet acknowledged} in hand-over order. */
    private final ArrayDeque<long[]> runs = new ArrayDeque<>();
    /** The position of the last run wholly acknowledged, in order (-1: none). */
    private long acknowledged = -1;
    private long candidate = -1;

    /** {@code records} were handed to Connect, in this order. */
    public synchronized void handedOver(List<SourceRecord> records) {
        for (SourceRecord r : records) {
            long next = position(r.sourceOffset());
            long[] last = runs.peekLast();
            if (last != null && last[0] == next) last[1]++;
            else runs.addLast(new long[] {next, 1});
        }
    }

    /** Kafka acknowledged {@code record} (or a transform dropped it). */
    public synchronized void acknowledged(SourceRecord record) {
        long next = position(record.sourceOffset());
        for (long[] run : runs) {
            if (run[0] == next && run[1] > 0) {
                run[1]--;
                break;
            }
        }
        while (!runs.isEmpty() && runs.peekFirst()[1] <= 0) acknowledged = runs.pollFirst()[0];
    }

    /**
     * Connect committed the offsets of what was acknowledged before the commit began: returns the
     * position to commit the group to now (-1: none), the one wholly acknowledged at the previous
     * commit, and remembers the one wholly acknowledged now for the next.
     */
    public synchronized long offsetsCommitted() {
        long commit = candidate;
        candidate = acknowledged;
        return commit;
    }

    private static long position(Map<String, ?> offset) {
        @SuppressWarnings("unchecked")
        String state = offset == null ? null : Position.incrementalState((Map<String, Object>) offset);
        try {
            return SignalOffsets.next(state);
        } catch (IllegalArgumentException e) {
            return -1;
        }
    }
}
