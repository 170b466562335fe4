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
 */
public record Piece(List<String> upTo, String snapshot, long lsn) implements java.io.Serializable {
    /** Copies the bound. */
    public Piece {
        upTo = upTo == null ? null : List.copyOf(upTo);
    }
}
