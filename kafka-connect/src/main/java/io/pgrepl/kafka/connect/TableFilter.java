package io.pgrepl.kafka.connect;

import io.pgrepl.kafka.connect.settings.RegexList;
import java.util.List;

/**
 * table.include.list / table.exclude.list and schema.include.list / schema.exclude.list: regular
 * expressions matched against the whole {@code schema.table} (or schema) name, ignoring case, as
 * Debezium matches them. An empty include list includes everything; a table must pass both kinds.
 */
public final class TableFilter {
    private final RegexList include;
    private final RegexList exclude;
    private final RegexList schemaInclude;
    private final RegexList schemaExclude;

    /** {@code schema.table} left out unless the include list names it (the signal table), or null. */
    private final String hidden;

    public TableFilter(List<String> include, List<String> exclude) {
        this(include, exclude, List.of(), List.of());
    }

    public TableFilter(List<String> include, List<String> exclude, List<String> schemaInclude, List<String> schemaExclude) {
        this(RegexList.of(include), RegexList.of(exclude), RegexList.of(schemaInclude), RegexList.of(schemaExclude), null);
    }

    private TableFilter(RegexList include, RegexList exclude, RegexList schemaInclude, RegexList schemaExclude, String hidden) {
        this.include = include;
        this.exclude = exclude;
        this.schemaInclude = schemaInclude;
        this.schemaExclude = schemaExclude;
        this.hidden = hidden;
    }

    /**
     * This filter, also leaving out {@code schema} . {@code table} unless table.include.list names
     * it: the signal table is in the publication for its signals, and Debezium sends its rows only
     * when the table is captured on purpose.
     */
    public TableFilter hiding(String schema, String table) {
        return new TableFilter(include, exclude, schemaInclude, schemaExclude, schema + "." + table);
    }

    public boolean isEmpty() {
        return include.isEmpty() && exclude.isEmpty() && schemaInclude.isEmpty() && schemaExclude.isEmpty();
    }

    public boolean test(String schema, String table) {
        return excludedBy(schema, table) == null;
    }

    /** {@return the setting that leaves {@code schema.table} out, or null when it passes} */
    public String excludedBy(String schema, String table) {
        String name = schema + "." + table;
        if (name.equals(hidden) && include.isEmpty()) return "signal.data.collection";
        if (!schemaInclude.isEmpty() && !schemaInclude.matches(schema)) return "schema.include.list";
        if (schemaExclude.matches(schema)) return "schema.exclude.list";
        if (!include.isEmpty() && !include.matches(name)) return "table.include.list";
        return exclude.matches(name) ? "table.exclude.list" : null;
    }
}
