package io.pgrepl.client.replication;

import io.pgrepl.client.PgClientException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A publication to create or alter: FOR ALL TABLES or FOR TABLE a list (names may be
 * schema-qualified as {@code schema.table}), plus WITH options such as
 * {@code publish = 'insert, update'} or {@code publish_via_partition_root = true}.
 *
 * @param name      the publication name, case kept (quoted in the SQL)
 * @param allTables FOR ALL TABLES
 * @param tables    the FOR TABLE list, {@code table} or {@code schema.table}; empty with {@code allTables}
 * @param options   the WITH options, e.g. {@code publish}; values are sent as string literals
 */
public record PublicationSpec(String name, boolean allTables, List<String> tables, Map<String, String> options) {
    /**
     * Copies the lists and checks the option names.
     *
     * @param name      the publication name
     * @param allTables FOR ALL TABLES
     * @param tables    the FOR TABLE list
     * @param options   the WITH options
     * @throws IllegalArgumentException for a table list with FOR ALL TABLES or an option name outside [a-z_]
     */
    public PublicationSpec {
        Objects.requireNonNull(name, "name");
        tables = List.copyOf(tables);
        options = Map.copyOf(options);
        if (allTables && !tables.isEmpty()) throw new IllegalArgumentException("FOR ALL TABLES takes no table list");
        for (String k : options.keySet()) {
            if (!k.matches("[a-z_]+")) throw new IllegalArgumentException("invalid publication option \"" + k + "\"");
        }
    }

    /**
     * A publication FOR ALL TABLES (creating it needs superuser).
     *
     * @param name the publication name
     * @return the spec, without options
     */
    public static PublicationSpec forAllTables(String name) {
        return new PublicationSpec(name, true, List.of(), Map.of());
    }

    /**
     * A publication FOR TABLE a list.
     *
     * @param name   the publication name
     * @param tables {@code table} or {@code schema.table} names
     * @return the spec, without options
     */
    public static PublicationSpec forTables(String name, String... tables) {
        return new PublicationSpec(name, false, List.of(tables), Map.of());
    }

    /**
     * Adds a WITH option; the value is sent as a string literal.
     *
     * @param option the option name, e.g. {@code publish}
     * @param value  its value, e.g. {@code insert, update}
     * @return a new spec with the option set
     */
    public PublicationSpec with(String option, String value) {
        Map<String, String> m = new TreeMap<>(options);
        m.put(option, value);
        return new PublicationSpec(name, allTables, tables, m);
    }

    /**
     * The CREATE PUBLICATION statement.
     *
     * @param serverVersionNum the server_version_num of the target server
     * @return the SQL
     */
    public String createSql(int serverVersionNum) {
        StringBuilder sb = new StringBuilder("CREATE PUBLICATION ").append(Identifiers.quoteIdentifier(name));
        if (allTables) sb.append(" FOR ALL TABLES");
        else if (!tables.isEmpty()) sb.append(" FOR TABLE ").append(tableList());
        appendOptions(sb);
        return sb.toString();
    }

    /**
     * SET TABLE replaces the table list; FOR ALL TABLES cannot be altered into a list or back
     * (the server refuses), so only options change for such a publication.
     *
     * @param serverVersionNum the server_version_num of the target server
     * @return one or two ALTER PUBLICATION statements, joined with {@code ;}
     * @throws PgClientException (INVALID_ARGUMENT) for an empty table list
     */
    public String alterSql(int serverVersionNum) {
        String q = Identifiers.quoteIdentifier(name);
        List<String> stmts = new ArrayList<>();
        if (!allTables) {
            if (tables.isEmpty()) {
                throw new PgClientException(PgClientException.Kind.INVALID_ARGUMENT,
                        "ALTER PUBLICATION cannot set an empty table list; drop the tables instead");
            }
            stmts.add("ALTER PUBLICATION " + q + " SET TABLE " + tableList());
        }
        if (!options.isEmpty()) {
            StringBuilder sb = new StringBuilder("ALTER PUBLICATION ").append(q).append(" SET (");
            appendOptionList(sb);
            stmts.add(sb.append(')').toString());
        }
        return String.join("; ", stmts);
    }

    /**
     * The DROP PUBLICATION statement.
     *
     * @param name     the publication name
     * @param ifExists add IF EXISTS
     * @return the SQL
     */
    public static String dropSql(String name, boolean ifExists) {
        return "DROP PUBLICATION " + (ifExists ? "IF EXISTS " : "") + Identifiers.quoteIdentifier(name);
    }

    private String tableList() {
        List<String> q = new ArrayList<>();
        for (String t : tables) q.add(Identifiers.quoteQualifiedName(t));
        return String.join(", ", q);
    }

    private void appendOptions(StringBuilder sb) {
        if (options.isEmpty()) return;
        sb.append(" WITH (");
        appendOptionList(sb);
        sb.append(')');
    }

    private void appendOptionList(StringBuilder sb) {
        boolean first = true;
        for (Map.Entry<String, String> e : new TreeMap<>(options).entrySet()) {
            if (!first) sb.append(", ");
            first = false;
            sb.append(e.getKey()).append(" = ").append(Identifiers.quoteLiteral(e.getValue()));
        }
    }
}
