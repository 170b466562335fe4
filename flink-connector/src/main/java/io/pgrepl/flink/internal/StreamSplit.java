package io.pgrepl.flink.internal;

import io.pgrepl.flink.TableName;
import java.util.List;
import java.util.Map;

/**
 * The stream: one split, read by one reader. Its position is where emission stands: every
 * transaction ending at or below {@code lsn} was emitted whole; of the transaction ending at
 * {@code partialEndLsn} (0: none) the first {@code partialCount} changes were emitted too (a large
 * transaction is emitted in several fetches, and a checkpoint may fall inside it). Changes are
 * counted without the Relation, Type and Origin records, which differ between connections.
 *
 * @param lsn           the end LSN of the last transaction emitted whole (or the position the stream starts at)
 * @param partialEndLsn the end LSN of a transaction emitted in part, or 0
 * @param partialCount  how many of its changes were emitted
 * @param stopLsn       the stream ends once it passed this position (startup mode snapshot), or 0: never
 * @param coverage      the snapshot's pieces by table, in key order: which changes they already hold
 */
public record StreamSplit(long lsn, long partialEndLsn, long partialCount, long stopLsn,
                          Map<TableName, List<Piece>> coverage) implements PgreplSplit {
    /** The one stream split's id. */
    public static final String ID = "stream";

    /** Copies the coverage. */
    public StreamSplit {
        coverage = Map.copyOf(coverage);
    }

    @Override
    public String splitId() {
        return ID;
    }

    /** {@return the same split at another position} */
    public StreamSplit at(long newLsn, long newPartialEndLsn, long newPartialCount) {
        return new StreamSplit(newLsn, newPartialEndLsn, newPartialCount, stopLsn, coverage);
    }
}
