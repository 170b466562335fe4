package io.pgrepl.client;

import java.util.List;

/**
 * The result of one statement of a simple query: its columns (empty for a statement returning
 * no rows), rows, and the CommandComplete tag (null for an empty query string).
 *
 * @param columns    the columns, empty for a statement returning no rows
 * @param rows       the rows
 * @param commandTag the CommandComplete tag, e.g. {@code SELECT 1}; null for an empty query string
 */
public record QueryResult(List<Column> columns, List<Row> rows, String commandTag) {
    /**
     * Copies the lists.
     *
     * @param columns    the columns, empty for a statement returning no rows
     * @param rows       the rows
     * @param commandTag the CommandComplete tag, or null for an empty query string
     */
    public QueryResult {
        columns = List.copyOf(columns);
        rows = List.copyOf(rows);
    }

    /**
     * Convenience for single-row results.
     *
     * @return the only row
     * @throws IllegalStateException if there is not exactly one row
     */
    public Row singleRow() {
        if (rows.size() != 1) throw new IllegalStateException("expected one row, got " + rows.size());
        return rows.get(0);
    }
}
