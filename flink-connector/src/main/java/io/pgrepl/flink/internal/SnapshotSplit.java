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
 */
public record SnapshotSplit(String id, TableName table, int index, List<String> keyColumns, List<String> after, List<String> upTo,
                            List<Piece> pieces, boolean finished) implements PgreplSplit, java.io.Serializable {
    /** Copies the lists. */
    public SnapshotSplit {
        keyColumns = List.copyOf(keyColumns);
        after = after == null ? null : List.copyOf(after);
        upTo = upTo == null ? null : List.copyOf(upTo);
        pieces = List.copyOf(pieces);
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
        return new SnapshotSplit(id, table, index, keyColumns, after, upTo, newPieces, done);
    }
}
