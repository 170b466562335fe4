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
 * @param reread        the tables read again while the job ran (the changelog may hold rows their pieces lack)
 * @param held          removals of keys of those tables that their pieces saw, held back ({@link HeldDelete})
 * @param epoch         how many suspensions the enumerator had acted on when it built the split (a suspension
 *                      reported again by a reader restored from an older checkpoint is told apart by it)
 * @param suspended     null while the stream runs; once it stopped for tables to be read again, what it asks for
 */
public record StreamSplit(long lsn, long partialEndLsn, long partialCount, long stopLsn,
                          Map<TableName, List<Piece>> coverage, java.util.Set<TableName> reread, List<HeldDelete> held,
                          int epoch, Resnapshot suspended) implements PgreplSplit, java.io.Serializable {
    /** The one stream split's id. */
    public static final String ID = "stream";

    /** Copies the coverage. */
    public StreamSplit {
        coverage = Map.copyOf(coverage);
        reread = java.util.Set.copyOf(reread);
        held = List.copyOf(held);
    }

    @Override
    public String splitId() {
        return ID;
    }

    /** {@return the same split at another position} */
    public StreamSplit at(long newLsn, long newPartialEndLsn, long newPartialCount) {
        return new StreamSplit(newLsn, newPartialEndLsn, newPartialCount, stopLsn, coverage, reread, held, epoch, suspended);
    }

    /** {@return the same split with other held removals} */
    public StreamSplit holding(List<HeldDelete> newHeld) {
        return new StreamSplit(lsn, partialEndLsn, partialCount, stopLsn, coverage, reread, newHeld, epoch, suspended);
    }

    /** {@return the same split, stopped for {@code request} (null: running)} */
    public StreamSplit suspendedFor(Resnapshot request) {
        return new StreamSplit(lsn, partialEndLsn, partialCount, stopLsn, coverage, reread, held, epoch, request);
    }
}
