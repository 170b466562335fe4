package io.pgrepl.client.snapshot.incremental;

import java.util.List;

/**
 * One contiguous slice of a table's key space: the rows whose key is greater than {@code after}
 * and at most {@code upTo}. A bound may be a prefix of the key (only its leading columns, e.g. a
 * histogram bound of the leading key column); it then compares on that prefix alone.
 *
 * @param after the exclusive lower bound as key texts, or null for the start of the table
 * @param upTo  the inclusive upper bound as key texts, or null for the end of the table
 */
public record KeyRange(List<String> after, List<String> upTo) {
    /**
     * Copies the bounds.
     *
     * @param after the exclusive lower bound as key texts, or null for the start of the table
     * @param upTo  the inclusive upper bound as key texts, or null for the end of the table
     */
    public KeyRange {
        after = after == null ? null : List.copyOf(after);
        upTo = upTo == null ? null : List.copyOf(upTo);
    }
}
