package io.pgrepl.flink.internal;

import io.pgrepl.flink.PgChange;
import java.util.List;

/**
 * What a split's fetch hands the task thread: changes to emit and the position updates that go
 * with them, in order. A position moves only when the element that carries it is emitted, so a
 * checkpoint between two elements records exactly what was emitted.
 */
sealed interface Element {
    /** A row of a snapshot split's piece being read under {@code snapshot}. */
    record Read(PgChange change, List<String> key, String snapshot, long lsn) implements Element {}

    /** The piece's rows are all emitted ({@code last}: and with them the split). */
    record PieceDone(Piece piece, boolean last) implements Element {}

    /** A stream change: the {@code ordinal}-th record of the transaction ending at {@code txEndLsn}. */
    record Change(PgChange change, long txEndLsn, long ordinal) implements Element {}

    /** Every change of the transaction ending at {@code endLsn} was emitted. */
    record TxDone(long endLsn, long commitTimeMicros) implements Element {}

    /** The stream is idle: every transaction ending at or below {@code lsn} was emitted. */
    record Advance(long lsn) implements Element {}
}
