package io.pgrepl.cli;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Minimal JSON writer: objects (insertion-ordered), arrays, strings, numbers, booleans and null.
 * Strings are escaped per RFC 8259 (quote, backslash, control characters); non-ASCII is written
 * as is (the output is UTF-8).
 */
final class Json {
    private Json() {}

    /** An ordered JSON object under construction. */
    static final class Obj {
        private final Map<String, Object> fields = new LinkedHashMap<>();

        /** value: String, Number, Boolean, null, Obj, or List of those. */
        Object get(String name) {
            return fields.get(name);
        }

        Obj put(String name, Object value) {
            fields.put(name, value);
            return this;
        }

        @Override
        public String toString() {
            StringBuilder sb = new StringBuilder();
            write(sb, this);
            return sb.toString();
        }
    }

    static Obj object() {
        return new Obj();
    }

    static String write(Object value) {
        StringBuilder sb = new StringBuilder();
        write(sb, value);
        return sb.toString();
    }

    private static void write(StringBuilder sb, Object v) {
        if (v == null) {
            sb.append("null");
        } else if (v instanceof String s) {
            appendQuoted(sb, s);
        } else if (v instanceof Boolean b) {
            sb.append(b.booleanValue());
        } else if (v instanceof Double d && (d.isNaN() || d.isInfinite())) {
            sb.append("null"); // JSON has no NaN/Infinity
        } else if (v instanceof Float f && (f.isNaN() || f.isInfinite())) {
            sb.append("null");
        } else if (v instanceof Number n) {
            sb.append(n);
        } else if (v instanceof Obj o) {
            sb.append('{');
            boolean first = true;
            for (Map.Entry<String, Object> e : o.fields.entrySet()) {
                if (!first) sb.append(',');
                first = false;
                appendQuoted(sb, e.getKey());
                sb.append(':');
                write(sb, e.getValue());
            }
            sb.append('}');
        } else if (v instanceof List<?> list) {
            sb.append('[');
            for (int i = 0; i < list.size(); i++) {
                if (i > 0) sb.append(',');
                write(sb, list.get(i));
            }
            sb.append(']');
        } else {
            throw new IllegalArgumentException("not a JSON value: " + v.getClass().getName());
        }
    }

    private static final char[] HEX = "0123456789abcdef".toCharArray();

    /**
     * Appends {@code s} as a JSON string literal: RFC 8259 escaping, non-ASCII kept as is. The one
     * escaper of the CLI (the change writer uses it too).
     */
    static StringBuilder appendQuoted(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\b' -> sb.append("\\b");
                case '\f' -> sb.append("\\f");
                default -> {
                    // U+2028/2029 are valid JSON but break JavaScript line parsing; escape them too.
                    if (c < 0x20 || c == '\u2028' || c == '\u2029') {
                        sb.append("\\u").append(HEX[c >> 12]).append(HEX[(c >> 8) & 0xf])
                                .append(HEX[(c >> 4) & 0xf]).append(HEX[c & 0xf]);
                    } else {
                        sb.append(c);
                    }
                }
            }
        }
        return sb.append('"');
    }
}
