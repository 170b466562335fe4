package io.pgrepl.client;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * One row of a simple-query result. Values are kept as the raw bytes the server sent (text
 * format), so a value that is not text (TIMELINE_HISTORY's file content) survives unchanged.
 */
public final class Row {
    private final List<Column> columns;
    private final byte[][] values;

    private Row(List<Column> columns, byte[][] values) {
        this.columns = columns;
        this.values = values;
    }

    /**
     * Wraps decoded values (owned by the row from now on).
     *
     * @param columns the result's columns
     * @param values  one value per column; {@code null} entries are SQL NULLs
     * @return the row
     */
    public static Row of(List<Column> columns, byte[][] values) {
        return new Row(columns, values);
    }

    /**
     * The number of columns.
     *
     * @return the column count
     */
    public int size() {
        return values.length;
    }

    /**
     * Whether column {@code i} is SQL NULL.
     *
     * @param i the column index, from 0
     * @return true for NULL
     */
    public boolean isNull(int i) {
        return values[i] == null;
    }

    /**
     * Column {@code i} as text (client_encoding is always UTF8).
     *
     * @param i the column index, from 0
     * @return the value's text form, or null for SQL NULL
     */
    public String get(int i) {
        return values[i] == null ? null : new String(values[i], StandardCharsets.UTF_8);
    }

    /**
     * The column named {@code column} as text.
     *
     * @param column a column name of the result
     * @return the value's text form, or null for SQL NULL
     * @throws IllegalArgumentException if the result has no such column
     */
    public String get(String column) {
        return get(indexOf(column));
    }

    /**
     * A copy of column {@code i}'s raw bytes.
     *
     * @param i the column index, from 0
     * @return the bytes, or null for SQL NULL
     */
    public byte[] bytes(int i) {
        return values[i] == null ? null : values[i].clone();
    }

    /**
     * Where the column named {@code column} is.
     *
     * @param column a column name
     * @return its index
     * @throws IllegalArgumentException if the result has no such column
     */
    public int indexOf(String column) {
        for (int i = 0; i < columns.size(); i++) {
            if (columns.get(i).name().equals(column)) return i;
        }
        throw new IllegalArgumentException("no column named " + column);
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder("Row[");
        for (int i = 0; i < values.length; i++) {
            if (i > 0) sb.append(", ");
            sb.append(get(i));
        }
        return sb.append(']').toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Row r && Arrays.deepEquals(values, r.values);
    }

    @Override
    public int hashCode() {
        return Arrays.deepHashCode(values);
    }
}
