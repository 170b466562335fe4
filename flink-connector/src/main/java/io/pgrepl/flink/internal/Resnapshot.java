package io.pgrepl.flink.internal;

import io.pgrepl.flink.TableName;
import java.io.Serializable;
import java.util.List;

/**
 * Why the stream split stopped to have tables read again: a snapshot signal named them, or the
 * slot was lost and every table is read again from a new slot. The stream waits, suspended at its
 * position, while the enumerator plans the tables' splits and the readers read them; it goes on
 * (from a new slot's consistent point when the slot was lost) with their pieces as its coverage.
 *
 * @param tables   the tables to read again, in the order asked
 * @param slotLost whether the slot is gone or invalidated: a new one is created first
 */
public record Resnapshot(List<TableName> tables, boolean slotLost) implements Serializable {
    private static final long serialVersionUID = 1L;

    /** Copies the tables. */
    public Resnapshot {
        tables = List.copyOf(tables);
        if (tables.isEmpty()) throw new IllegalArgumentException("no table to read again");
    }
}
