package io.pgrepl.kafka.connect.snapshot;

import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.kafka.connect.settings.ColumnRules;
import io.pgrepl.kafka.connect.settings.TableShape;
import java.util.HashMap;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Key texts as the notifications print them ({@code last_processed_key}, {@code maximum_key}),
 * passed through the same column rules as the records: a masked, hashed or truncated key column
 * shows its masked value, an excluded one {@value MaximumKeys#NONE}. The notification topic is a
 * topic like the others; a key hidden in the records must not leave through it. Builder thread.
 */
public final class NotifiedKeys {
    private final ColumnRules rules;
    private final Map<Integer, TableShape> shapes = new HashMap<>();

    public NotifiedKeys(ColumnRules rules) {
        this.rules = rules;
    }

    /** The text of key column {@code column} (an index into the relation's columns) as the records show it. */
    public String text(RelationInfo rel, int column, String value) {
        if (value == null || rules.isEmpty()) return value;
        TableShape shape = shapes.computeIfAbsent(rel.oid(), o -> rules.table(rel.namespace(), rel.name(), rel.columns(), oid -> ""));
        if (!shape.included(column)) return MaximumKeys.NONE;
        UnaryOperator<Object> f = shape.transform(column);
        return f == null ? value : String.valueOf(f.apply(value));
    }
}
