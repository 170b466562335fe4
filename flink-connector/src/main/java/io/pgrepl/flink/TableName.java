package io.pgrepl.flink;

import io.pgrepl.client.replication.Identifiers;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;

/**
 * A table as PostgreSQL names it: schema and table, as in the catalog (case and characters kept).
 *
 * @param schema the schema name
 * @param table  the table name
 */
public record TableName(String schema, String table) implements Serializable {
    /**
     * Checks the parts.
     *
     * @param schema the schema name
     * @param table  the table name
     */
    public TableName {
        Identifiers.quoteIdentifier(schema);
        Identifiers.quoteIdentifier(table);
    }

    /**
     * Parses {@code schema.table} or {@code table} (schema {@code public}); a part in double quotes is
     * taken as written ({@code "Sales"."Order Items"}), an unquoted part as is (no case folding).
     *
     * @param name the name
     * @return the table
     * @throws IllegalArgumentException for an empty part, unbalanced quotes or more than two parts
     */
    public static TableName parse(String name) {
        String quoted = Identifiers.quoteQualifiedName(name.strip());
        List<String> parts = new ArrayList<>(2);
        StringBuilder sb = new StringBuilder();
        for (int i = 1; i < quoted.length(); i++) {
            char c = quoted.charAt(i);
            if (c == '"') {
                if (i + 1 < quoted.length() && quoted.charAt(i + 1) == '"') {
                    sb.append('"');
                    i++;
                } else {
                    parts.add(sb.toString());
                    sb.setLength(0);
                    i += 2; // past ."
                }
            } else {
                sb.append(c);
            }
        }
        return parts.size() == 1 ? new TableName("public", parts.get(0)) : new TableName(parts.get(0), parts.get(1));
    }

    /** {@return {@code "schema"."table"}, quoted for SQL} */
    public String quoted() {
        return Identifiers.quoteIdentifier(schema) + "." + Identifiers.quoteIdentifier(table);
    }

    /** {@return {@code schema.table}, unquoted} */
    @Override
    public String toString() {
        return schema + "." + table;
    }
}
