package io.pgrepl.kafka.connect.settings;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * database.initial.statements, as Debezium splits it (statements separated by {@code ;}, a
 * doubled {@code ;;} standing for a semicolon inside one). pgrepl opens its connections through
 * the wire protocol and runs no SQL of a user's on them; what such statements are for (a role for
 * row-level security, a search_path, a statement_timeout) is a session parameter, so the {@code SET}
 * forms are taken as startup parameters of every connection that reads table rows, which the server
 * applies before the first query. Any other statement is refused.
 */
public final class InitialStatements {
    private InitialStatements() {}

    /** SET [SESSION] name {TO | =} value[, value...]; SET ROLE name; SET TIME ZONE value. */
    private static final Pattern SET = Pattern.compile(
            "(?is)SET\\s+(?:SESSION\\s+)?(?:(ROLE)\\s+(.+)|(TIME\\s+ZONE)\\s+(.+)|([A-Za-z_][A-Za-z0-9_.]*)\\s*(?:=|\\s+TO\\s+)\\s*(.+))");
    private static final Pattern VALUE = Pattern.compile("'((?:[^']|'')*)'|\"((?:[^\"]|\"\")+)\"|([A-Za-z0-9_.+\\-:/]+)");

    /** The parameters the statements set, in order; throws naming the first statement that is not a SET. */
    public static Map<String, String> parameters(String statements) {
        Map<String, String> out = new LinkedHashMap<>();
        if (statements == null || statements.isBlank()) return out;
        List<String> list = split(statements);
        for (int i = 0; i < list.size(); i++) {
            String s = list.get(i).trim();
            if (s.isEmpty()) continue;
            Matcher m = SET.matcher(s);
            String name;
            String raw;
            if (!m.matches()) throw refused(i, s);
            if (m.group(1) != null) {
                name = "role";
                raw = m.group(2);
            } else if (m.group(3) != null) {
                name = "TimeZone";
                raw = m.group(4);
            } else {
                name = m.group(5);
                raw = m.group(6);
            }
            String value = values(raw.trim());
            if (value != null && name.equals("role")) value = roleName(raw.trim());
            if (value == null || name.equalsIgnoreCase("session_authorization")) throw refused(i, s);
            out.put(name, value);
        }
        return out;
    }

    private static IllegalArgumentException refused(int index, String statement) {
        // Only the first word: the rest may hold a secret.
        String first = statement.split("\\s+", 2)[0].toUpperCase(Locale.ROOT);
        return new IllegalArgumentException("statement " + (index + 1) + " (" + first + " ...) is not one pgrepl can run:"
                + " pgrepl sets session parameters only (SET name = value, SET ROLE name, SET TIME ZONE value), applied to"
                + " every connection that reads table rows; do anything else once, outside the connector");
    }

    /** A role as SET ROLE reads it: an unquoted name folds to lower case, a quoted one or a literal is taken as written. */
    private static String roleName(String raw) {
        Matcher v = VALUE.matcher(raw);
        if (!v.matches()) return null;
        if (v.group(1) != null) return v.group(1).replace("''", "'");
        if (v.group(2) != null) return v.group(2).replace("\"\"", "\"");
        return v.group(3).toLowerCase(Locale.ROOT);
    }

    /** A value list as the server reads it in a startup packet: items joined by ", ", quotes removed. */
    private static String values(String raw) {
        List<String> items = new ArrayList<>();
        int at = 0;
        while (true) {
            Matcher v = VALUE.matcher(raw);
            v.region(at, raw.length());
            if (!v.lookingAt()) return null;
            if (v.group(1) != null) items.add(v.group(1).replace("''", "'"));
            else if (v.group(2) != null) items.add("\"" + v.group(2) + "\"");
            else items.add(v.group(3));
            at = v.end();
            while (at < raw.length() && Character.isWhitespace(raw.charAt(at))) at++;
            if (at == raw.length()) break;
            if (raw.charAt(at) != ',') return null;
            at++;
            while (at < raw.length() && Character.isWhitespace(raw.charAt(at))) at++;
        }
        return String.join(", ", items);
    }

    /** Debezium's split: {@code ;} ends a statement, {@code ;;} is a semicolon within one. */
    static List<String> split(String s) {
        List<String> out = new ArrayList<>();
        StringBuilder cur = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == ';') {
                if (i + 1 < s.length() && s.charAt(i + 1) == ';') {
                    cur.append(';');
                    i++;
                } else {
                    out.add(cur.toString());
                    cur.setLength(0);
                }
            } else {
                cur.append(c);
            }
        }
        out.add(cur.toString());
        return out;
    }
}
