package io.pgrepl.client.replication;

import java.util.Objects;

/**
 * A table's name as the catalog stores it ({@code pg_namespace.nspname}, {@code pg_class.relname}):
 * exact, without quotes or folding. {@link #parse} reads a name the way PostgreSQL reads one in
 * SQL, and {@link #toString()} writes it back in the shortest form that parses to the same name,
 * so each table has one spelling wherever names are compared (signals, options, saved state).
 *
 * @param schema the schema name, exact
 * @param name   the table name, exact
 */
public record QualifiedName(String schema, String name) {
    /**
     * Checks both parts.
     *
     * @param schema the schema name, exact
     * @param name   the table name, exact
     * @throws IllegalArgumentException for an empty part or one holding NUL
     */
    public QualifiedName {
        requirePart(Objects.requireNonNull(schema, "schema"), "schema");
        requirePart(Objects.requireNonNull(name, "name"), "table");
    }

    private static void requirePart(String part, String what) {
        if (part.isEmpty()) throw new IllegalArgumentException("empty " + what + " name");
        if (part.indexOf('\0') >= 0) throw new IllegalArgumentException(what + " name contains NUL");
    }

    /**
     * Reads {@code table} or {@code schema.table} as PostgreSQL reads a name in SQL: a part in
     * double quotes is taken as written (a doubled quote stands for one, and dots inside are part
     * of the name); an unquoted part must be a plain identifier (a letter or underscore, then
     * letters, digits, underscores or dollar signs) and is folded to lower case (ASCII letters,
     * as the server folds them in UTF-8). A name without a schema is in {@code public}.
     *
     * @param text the name as a user writes it, e.g. {@code Sales."Order-Items"}
     * @return the name
     * @throws IllegalArgumentException for anything else, saying what is wrong
     */
    public static QualifiedName parse(String text) {
        return parse(text, true);
    }

    /**
     * Reads a name like {@link #parse} but keeps the case of unquoted parts: how Debezium reads the
     * names in its settings and signals (its table ids are the catalog's names), so that
     * {@code Sales."Order-Items"} there means schema {@code Sales}.
     *
     * @param text the name as written
     * @return the name, unquoted parts as written
     * @throws IllegalArgumentException as {@link #parse}
     */
    public static QualifiedName parseAsWritten(String text) {
        return parse(text, false);
    }

    private static QualifiedName parse(String text, boolean fold) {
        Objects.requireNonNull(text, "name");
        String[] parts = new String[3];
        int n = 0;
        int i = 0;
        int len = text.length();
        if (len == 0) throw new IllegalArgumentException("empty table name");
        while (true) {
            if (n == 2) throw new IllegalArgumentException("\"" + text + "\" has more than two parts: write schema.table, quoting a part that holds a dot");
            StringBuilder part = new StringBuilder();
            if (i < len && text.charAt(i) == '"') {
                i++;
                while (true) {
                    if (i >= len) throw new IllegalArgumentException("unterminated quoted name in \"" + text + "\"");
                    char c = text.charAt(i++);
                    if (c != '"') {
                        part.append(c);
                    } else if (i < len && text.charAt(i) == '"') {
                        part.append('"');
                        i++;
                    } else {
                        break;
                    }
                }
                if (part.length() == 0) throw new IllegalArgumentException("zero-length quoted name in \"" + text + "\"");
            } else {
                int start = i;
                while (i < len && text.charAt(i) != '.') i++;
                String raw = text.substring(start, i);
                if (!isPlainIdentifier(raw)) {
                    throw new IllegalArgumentException("\"" + raw + "\" in \"" + text + "\" is not a plain identifier:"
                            + " put it in double quotes, e.g. " + Identifiers.quoteIdentifier(raw.isEmpty() ? "name" : raw));
                }
                part.append(fold ? foldCase(raw) : raw);
            }
            parts[n++] = part.toString();
            if (i == len) break;
            if (text.charAt(i) != '.') throw new IllegalArgumentException("expected a dot after a quoted name in \"" + text + "\"");
            i++;
            if (i == len) throw new IllegalArgumentException("\"" + text + "\" ends with a dot");
        }
        return n == 1 ? new QualifiedName("public", parts[0]) : new QualifiedName(parts[0], parts[1]);
    }

    /** What PostgreSQL's scanner accepts unquoted: {@code [A-Za-z\200-\377_][A-Za-z\200-\377_0-9$]*}. */
    private static boolean isPlainIdentifier(String s) {
        if (s.isEmpty()) return false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean letter = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' || c >= 0x80;
            if (!(letter || (i > 0 && ((c >= '0' && c <= '9') || c == '$')))) return false;
        }
        return true;
    }

    private static String foldCase(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            b.append(c >= 'A' && c <= 'Z' ? (char) (c + ('a' - 'A')) : c);
        }
        return b.toString();
    }

    /** {@return {@code schema.table} without quotes: the form Debezium's regular expressions and topic names use} */
    public String unquoted() {
        return schema + "." + name;
    }

    /** {@return both parts in double quotes, for SQL} */
    public String quoted() {
        return Identifiers.quoteIdentifier(schema) + "." + Identifiers.quoteIdentifier(name);
    }

    /**
     * The canonical spelling: each part bare when it reads back unchanged unquoted (lower case
     * letters, digits, underscores), else in double quotes; {@link #parse} of it gives this name.
     *
     * @return e.g. {@code public.orders} or {@code "Sales.Q1"."Order-Items"}
     */
    @Override
    public String toString() {
        return canonicalPart(schema) + "." + canonicalPart(name);
    }

    private static String canonicalPart(String s) {
        boolean bare = !s.isEmpty() && !(s.charAt(0) >= '0' && s.charAt(0) <= '9') && s.charAt(0) != '$';
        for (int i = 0; bare && i < s.length(); i++) {
            char c = s.charAt(i);
            bare = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '$';
        }
        return bare ? s : Identifiers.quoteIdentifier(s);
    }
}
