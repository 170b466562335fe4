package io.pgrepl.codec.pgoutput.record;

import java.util.List;

/** A copied TupleData: one {@link ColumnValue} per relation column, in relation order. */
public record Tuple(List<ColumnValue> columns) {
    public Tuple {
        columns = List.copyOf(columns);
    }

    public int size() {
        return columns.size();
    }

    public ColumnValue get(int i) {
        return columns.get(i);
    }

    /** The column named {@code name}, or null. */
    public ColumnValue get(String name) {
        for (ColumnValue c : columns) if (c.name().equals(name)) return c;
        return null;
    }
}
