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

    TableFilter(List<String> include, List<String> exclude) {
        this.include = include.stream().map(String::trim).filter(s -> !s.isEmpty()).map(Pattern::compile).toList();
        this.exclude = exclude.stream().map(String::trim).filter(s -> !s.isEmpty()).map(Pattern::compile).toList();
    }

    boolean isEmpty() {
        return include.isEmpty() && exclude.isEmpty();
    }

    boolean test(String schema, String table) {
        String name = schema + "." + table;
        if (!include.isEmpty() && include.stream().noneMatch(p -> p.matcher(name).matches())) return false;
        return exclude.stream().noneMatch(p -> p.matcher(name).matches());
    }
}
