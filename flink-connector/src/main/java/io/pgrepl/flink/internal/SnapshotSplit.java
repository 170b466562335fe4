package io.pgrepl.flink.internal;

import io.pgrepl.flink.TableName;
import java.util.List;

/**
 * A key range of one table, read piece by piece, each piece in its own REPEATABLE READ transaction.
 * Its progress travels with it: the pieces finished so far (so a restored split reads on after the
 * last one, under a new snapshot), and whether it is finished (then it only waits for the
 * enumerator to acknowledge it).
 *
 * @param id       unique within the source
 * @param table    the table
 * @param index    the range's position in the table's key order (ranges of a table are numbered from 0)
 * @param keyColumns the key columns the range was planned by (a reader checks its own plan against them)
 * @param after    the exclusive lower key bound as key texts, or null for the start of the table
 * @param upTo     the inclusive upper key bound as key texts, or null for the end of the table
 * @param pieces   the pieces read and emitted so far, in key order
 * @param finished whether every row of the range was emitted
 * @param again    whether an earlier attempt may have emitted rows of the range past its last piece (it comes from a
 *                 checkpoint, or was given back after a failure): the pieces read from here on are marked {@link Piece#again}
 */
public record SnapshotSplit(String id, TableName table, int index, List<String> keyColumns, List<String> after, List<String> upTo,
                            List<Piece> pieces, boolean finished, boolean again) implements PgreplSplit, java.io.Serializable {
    /** Copies the lists. */
    public SnapshotSplit {
        keyColumns = List.copyOf(keyColumns);
        after = after == null ? null : List.copyOf(after);
        upTo = upTo == null ? null : List.copyOf(upTo);
        pieces = List.copyOf(pieces);
    }

    /** A split not read before. */
    public SnapshotSplit(String id, TableName table, int index, List<String> keyColumns, List<String> after, List<String> upTo,
                         List<Piece> pieces, boolean finished) {
        this(id, table, index, keyColumns, after, upTo, pieces, finished, false);
    }

    @Override
    public String splitId() {
        return id;
    }

    /** {@return where reading goes on: after the last piece's bound, or the range's lower bound} */
    public List<String> resumeAfter() {
        return pieces.isEmpty() ? after : pieces.get(pieces.size() - 1).upTo();
    }

    /** {@return the same range with other progress} */
    public SnapshotSplit with(List<Piece> newPieces, boolean done) {
        return new SnapshotSplit(id, table, index, keyColumns, after, upTo, newPieces, done, again);
    }

    /** {@return the same split, read on by an attempt that may follow an earlier one's emitted rows} */
    public SnapshotSplit readAgain() {
        return again ? this : new SnapshotSplit(id, table, index, keyColumns, after, upTo, pieces, finished, true);
    }
}
