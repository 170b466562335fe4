package io.pgrepl.kafka.connect.values;

import java.util.HashMap;
import java.util.Map;

/**
 * hstore's text form ({@code "k"=>"v", "k2"=>NULL}) as Debezium's {@code hstore.handling.mode}
 * writes it: a map, or (json) a JSON object of string values in the map's iteration order, as
 * Debezium's comes from a {@link HashMap} too.
 */
final class Hstore {
    private Hstore() {}

    /** The pairs of {@code text}; a NULL value maps to null. */
    static Map<String, String> parse(String text) {
        Map<String, String> out = new HashMap<>();
        int i = 0;
        int n = text.length();
        while (true) {
            i = skipSpace(text, i);
            if (i >= n) return out;
            StringBuilder key = new StringBuilder();
            i = quoted(text, i, key);
            i = skipSpace(text, i);
            if (!text.startsWith("=>", i)) throw bad(text, i);
            i = skipSpace(text, i + 2);
            String value;
            if (text.startsWith("NULL", i)) {
                value = null;
                i += 4;
            } else {
                StringBuilder v = new StringBuilder();
                i = quoted(text, i, v);
                value = v.toString();
            }
            out.put(key.toString(), value);
            i = skipSpace(text, i);
            if (i >= n) return out;
            if (text.charAt(i) != ',') throw bad(text, i);
            i++;
        }
    }

    /** {@code text} as a JSON object, escaped as Jackson's generator escapes strings. */
    static String json(String text) {
        StringBuilder b = new StringBuilder("{");
        boolean first = true;
        for (Map.Entry<String, String> e : parse(text).entrySet()) {
            if (!first) b.append(',');
            first = false;
            string(b, e.getKey());
            b.append(':');
            if (e.getValue() == null) b.append("null");
            else string(b, e.getValue());
        }
        return b.append('}').toString();
    }

    private static void string(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                case '\b' -> b.append("\\b");
                case '\f' -> b.append("\\f");
                default -> {
                    if (c < 0x20) b.append(String.format("\\u%04X", (int) c));
                    else b.append(c);
                }
            }
        }
        b.append('"');
    }

    private static int quoted(String text, int i, StringBuilder out) {
        if (i >= text.length() || text.charAt(i) != '"') throw bad(text, i);
        for (i++; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\\' && i + 1 < text.length()) out.append(text.charAt(++i));
            else if (c == '"') return i + 1;
            else out.append(c);
        }
        throw bad(text, i);
    }

    private static int skipSpace(String text, int i) {
        while (i < text.length() && Character.isWhitespace(text.charAt(i))) i++;
        return i;
    }

    private static IllegalArgumentException bad(String text, int at) {
        return new IllegalArgumentException("not an hstore value at offset " + at + " of " + text.length());
    }
}
