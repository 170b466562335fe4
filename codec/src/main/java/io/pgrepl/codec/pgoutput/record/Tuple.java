package io.pgrepl.codec.pgoutput.record;

import java.util.List;

/**
 * A copied TupleData: one {@link ColumnValue} per relation column, in relation order.
 *
 * @param columns one value per relation column, in relation order
 */
public record Tuple(List<ColumnValue> columns) {
    /**
     * A tuple of the given columns.
     *
     * @param columns one value per relation column, copied
     */
    public Tuple {
        columns = List.copyOf(columns);
    }

    /**
     * The number of columns.
     *
     * @return the column count
     */
    public int size() {
        return columns.size();
    }

    /**
     * Column {@code i}.
     *
     * @param i the column index, from 0
     * @return the column's value
     */
    public ColumnValue get(int i) {
        return columns.get(i);
    }

    /**
     * The column named {@code name}.
     *
     * @param name the column name (exact, case-sensitive)
     * @return the column's value, or null if there is no such column
     */
    public ColumnValue get(String name) {
        for (ColumnValue c : columns) if (c.name().equals(name)) return c;
        return null;
    }
}
