package io.pgrepl.client.replication;

/** Quoting and validation of names that end up in SQL or replication command text. */
public final class Identifiers {
    private Identifiers() {}

    /**
     * Slot names: 1 to 63 characters from [a-z0-9_], as the server requires (else 42602).
     *
     * @param name the slot name
     * @return {@code name}
     * @throws IllegalArgumentException for an empty, too long or otherwise invalid name
     */
    public static String requireSlotName(String name) {
        if (name == null || name.isEmpty() || name.length() > 63) {
            throw new IllegalArgumentException("replication slot name must be 1 to 63 characters");
        }
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) {
                throw new IllegalArgumentException("replication slot name \"" + name
                        + "\" contains invalid character; only lower case letters, numbers and underscore are allowed");
            }
        }
        return name;
    }

    /** Output plugin names become identifiers in the command; keep them to a safe alphabet. */
    static String requirePluginName(String name) {
        if (name.isEmpty() || name.length() > 63 || !name.matches("[A-Za-z0-9_]+")) {
            throw new IllegalArgumentException("invalid output plugin name \"" + name + "\"");
        }
        return name;
    }

    /**
     * SQL identifier in double quotes, embedded quotes doubled.
     *
     * @param name the identifier, case kept
     * @return the quoted identifier
     */
    public static String quoteIdentifier(String name) {
        if (name == null || name.isEmpty() || name.indexOf('\0') >= 0) {
            throw new IllegalArgumentException("invalid identifier");
        }
        return '"' + name.replace("\"", "\"\"") + '"';
    }

    /**
     * A possibly schema-qualified table name given as {@code schema.table}, each part quoted.
     * Parts already in double quotes are taken as written (so {@code "my.schema"."T"} works).
     *
     * @param name {@code table} or {@code schema.table}
     * @return the quoted name
     * @throws IllegalArgumentException for an empty part or more than two parts
     */
    public static String quoteQualifiedName(String name) {
        StringBuilder out = new StringBuilder();
        int i = 0;
        int parts = 0;
        while (i < name.length()) {
            String part;
            if (name.charAt(i) == '"') {
                StringBuilder sb = new StringBuilder();
                i++;
                while (true) {
                    if (i >= name.length()) throw new IllegalArgumentException("unterminated quoted name: " + name);
                    char c = name.charAt(i++);
                    if (c == '"') {
                        if (i < name.length() && name.charAt(i) == '"') {
                            sb.append('"');
                            i++;
                        } else break;
                    } else sb.append(c);
                }
                part = sb.toString();
            } else {
                int dot = name.indexOf('.', i);
                int end = dot < 0 ? name.length() : dot;
                part = name.substring(i, end);
                i = end;
            }
            if (parts++ > 0) out.append('.');
            out.append(quoteIdentifier(part));
            if (i < name.length()) {
                if (name.charAt(i) != '.') throw new IllegalArgumentException("invalid qualified name: " + name);
                i++;
                if (i == name.length()) throw new IllegalArgumentException("invalid qualified name: " + name);
            }
        }
        if (parts == 0 || parts > 2) throw new IllegalArgumentException("invalid qualified name: " + name);
        return out.toString();
    }

    /**
     * SQL string literal with single quotes doubled. A value with a backslash uses the E'' form
     * with backslashes doubled, which reads the same whatever standard_conforming_strings says.
     *
     * @param value the text
     * @return the literal, quotes included
     */
    public static String quoteLiteral(String value) {
        if (value.indexOf('\0') >= 0) throw new IllegalArgumentException("a literal cannot contain NUL");
        String q = value.replace("'", "''");
        return value.indexOf('\\') >= 0 ? "E'" + q.replace("\\", "\\\\") + '\'' : '\'' + q + '\'';
    }
}
