package io.pgrepl.kafka.connect.settings;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * message.key.columns: {@code <table regex>:<column>,<column>;...}, as Debezium reads it. The table
 * expression matches the whole {@code schema.table} name, ignoring case; the first entry that matches
 * a table gives its key's columns.
 */
record KeyColumns(List<Entry> entries) {
    record Entry(Pattern table, List<String> columns) {}

    static final KeyColumns NONE = new KeyColumns(List.of());

    static KeyColumns parse(String setting) {
        if (setting == null || setting.isBlank()) return NONE;
        List<Entry> out = new ArrayList<>();
        for (String part : setting.split(";")) {
            if (part.isBlank()) continue;
            int colon = part.lastIndexOf(':');
            if (colon <= 0 || colon == part.length() - 1) {
                throw new IllegalArgumentException("expected <schema.table regex>:<column>,<column>;... but an entry has no"
                        + " table or no columns");
            }
            List<String> columns = new ArrayList<>();
            for (String c : part.substring(colon + 1).split(",")) if (!c.isBlank()) columns.add(c.trim());
            out.add(new Entry(Pattern.compile(part.substring(0, colon).trim(), Pattern.CASE_INSENSITIVE), List.copyOf(columns)));
        }
        return new KeyColumns(List.copyOf(out));
    }

    /** {@return the key columns named for {@code schema.table}, or null when no entry matches} */
    List<String> of(String qualifiedTable) {
        for (Entry e : entries) if (e.table().matcher(qualifiedTable).matches()) return e.columns();
        return null;
    }
}
