package io.pgrepl.flink.internal;

import java.util.List;

/**
 * A finished piece of a snapshot split: the rows after the previous piece's bound (the split's
 * lower bound for the first) up to {@code upTo} inclusive, read in one transaction under
 * {@code snapshot}. {@code upTo} null: to the end of the table.
 *
 * @param upTo     the inclusive upper key bound as key texts (a key prefix allowed), or null
 * @param snapshot the transaction snapshot the piece was read under ({@code xmin:xmax:xip})
 * @param lsn      the WAL position read right after that snapshot: every transaction it saw ends at or before it
 * @param again    whether an earlier attempt may have emitted rows of this range under an older snapshot, rows a sink
 *                 that is not rolled back to the checkpoint still holds (the split was restored in progress or given
 *                 back after a failure): a removal this piece saw may be of such a row, so the stream emits it
 */
public record Piece(List<String> upTo, String snapshot, long lsn, boolean again) implements java.io.Serializable {
    /** Copies the bound. */
    public Piece {
        upTo = upTo == null ? null : List.copyOf(upTo);
    }

    /** A piece read by a split's first attempt. */
    public Piece(List<String> upTo, String snapshot, long lsn) {
        this(upTo, snapshot, lsn, false);
    }
}
