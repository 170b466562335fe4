package io.pgrepl.kafka.connect.settings;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * What the column settings make of one table's columns, by position in its Relation message:
 * whether a column is in the row ({@code before}/{@code after}), what happens to its value once
 * converted (mask, hash, truncation), the parameters its field schema gets, and the key's columns
 * when message.key.columns names them.
 */
public final class TableShape {
    /** A table no column setting touches. */
    public static final TableShape NONE = new TableShape(null, null, null, null);

    private final boolean[] excluded;
    private final UnaryOperator<Object>[] transforms;
    private final Map<String, String>[] parameters;
    private final List<String> keyColumns;

    TableShape(boolean[] excluded, UnaryOperator<Object>[] transforms, Map<String, String>[] parameters, List<String> keyColumns) {
        this.excluded = excluded;
        this.transforms = transforms;
        this.parameters = parameters;
        this.keyColumns = keyColumns;
    }

    /** {@return whether column {@code i} is sent in the row} */
    public boolean included(int i) {
        return excluded == null || i >= excluded.length || !excluded[i];
    }

    /** {@return what happens to column {@code i}'s converted value, or null: nothing} */
    public UnaryOperator<Object> transform(int i) {
        return transforms == null || i >= transforms.length ? null : transforms[i];
    }

    /** {@return the parameters column {@code i}'s field schema gets (empty: none)} */
    public Map<String, String> parameters(int i) {
        return parameters == null || i >= parameters.length || parameters[i] == null ? Map.of() : parameters[i];
    }

    /** {@return the key's column names (message.key.columns), or null: the replica identity's} */
    public List<String> keyColumns() {
        return keyColumns;
    }

    @Override
    public String toString() {
        return "TableShape{excluded=" + Arrays.toString(excluded) + ", key=" + keyColumns + "}";
    }
}
