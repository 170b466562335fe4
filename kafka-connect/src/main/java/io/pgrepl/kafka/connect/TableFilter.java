package io.pgrepl.kafka.connect;

import java.util.List;
import java.util.regex.Pattern;

/**
 * table.include.list / table.exclude.list: regular expressions matched against the whole
 * {@code schema.table} name, as Debezium matches them. An empty include list includes everything.
 */
final class TableFilter {
    private final List<Pattern> include;
    private final List<Pattern> exclude;

    /** {@code schema.table} left out unless the include list names it (the signal table), or null. */
    private final String hidden;

    TableFilter(List<String> include, List<String> exclude) {
        this(include.stream().map(String::trim).filter(s -> !s.isEmpty()).map(Pattern::compile).toList(),
                exclude.stream().map(String::trim).filter(s -> !s.isEmpty()).map(Pattern::compile).toList(), null);
    }

    private TableFilter(List<Pattern> include, List<Pattern> exclude, String hidden) {
        this.include = include;
        this.exclude = exclude;
        this.hidden = hidden;
    }

    /**
     * This filter, also leaving out {@code schema} . {@code table} unless table.include.list names
     * it: the signal table is in the publication for its signals, and Debezium sends its rows only
     * when the table is captured on purpose.
     */
    TableFilter hiding(String schema, String table) {
        return new TableFilter(include, exclude, schema + "." + table);
    }

    boolean isEmpty() {
        return include.isEmpty() && exclude.isEmpty();
    }

    boolean test(String schema, String table) {
        String name = schema + "." + table;
        if (name.equals(hidden) && include.isEmpty()) return false;
        if (!include.isEmpty() && include.stream().noneMatch(p -> p.matcher(name).matches())) return false;
        return exclude.stream().noneMatch(p -> p.matcher(name).matches());
    }
}
