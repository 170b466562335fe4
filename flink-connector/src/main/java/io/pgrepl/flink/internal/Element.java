package io.pgrepl.flink.internal;

import io.pgrepl.flink.PgChange;
import java.util.List;

/**
 * What a split's fetch hands the task thread: changes to emit and the position updates that go
 * with them, in order. A position moves only when the element that carries it is emitted, so a
 * checkpoint between two elements records exactly what was emitted.
 */
sealed interface Element {
    /**
     * A row of a snapshot split's piece being read under {@code snapshot}; its key columns are at
     * {@code keyIndexes} of the row (taken only when a checkpoint records how far the piece got).
     */
    record Read(PgChange change, int[] keyIndexes, String snapshot, long lsn) implements Element {
        List<String> key() {
            List<String> k = new java.util.ArrayList<>(keyIndexes.length);
            for (int i : keyIndexes) k.add(change.after().text(i));
            return k;
        }
    }

    /** The piece's rows are all emitted ({@code last}: and with them the split). */
    record PieceDone(Piece piece, boolean last) implements Element {}

    /** A stream change: the {@code ordinal}-th record of the transaction ending at {@code txEndLsn}. */
    record Change(PgChange change, long txEndLsn, long ordinal) implements Element {}

    /**
     * Every change of the transaction ending at {@code endLsn} was emitted; {@code suspend}: and its
     * signals stop the stream there for tables to be read again (else null).
     */
    record TxDone(long endLsn, long commitTimeMicros, Resnapshot suspend) implements Element {}

    /** The stream is idle: every transaction ending at or below {@code lsn} was emitted. */
    record Advance(long lsn) implements Element {}

    /** A removal the pieces of a table read again saw, held back ({@link HeldDelete}). */
    record Hold(HeldDelete delete) implements Element {}

    /** A change the pieces saw put the key back: its held removal is dropped. */
    record Release(HeldKey key) implements Element {}

    /** A held removal is due: emitted now. */
    record Flush(HeldDelete delete) implements Element {}

    /** The stream stops where it is, before any change, for tables to be read again (the slot was lost). */
    record Suspend(Resnapshot request) implements Element {}
}
