package io.pgrepl.client.internal;

import java.util.List;
import java.util.Map;

/**
 * Writes the values {@link JsonReader} reads (Map, List, String, Number, Boolean, null) as compact
 * JSON, so what one writes the other reads back equal.
 */
public final class JsonWriter {
    private JsonWriter() {}

    /**
     * Writes a value.
     *
     * @param value a Map with String keys, List, String, Number, Boolean or null
     * @return the JSON text
     * @throws IllegalArgumentException for any other value, or a non-finite number
     */
    public static String write(Object value) {
        StringBuilder b = new StringBuilder();
        write(b, value);
        return b.toString();
    }

    /**
     * Appends a value.
     *
     * @param b     where to write
     * @param value a Map with String keys, List, String, Number, Boolean or null
     */
    public static void write(StringBuilder b, Object value) {
        if (value == null) {
            b.append("null");
        } else if (value instanceof String str) {
            string(b, str);
        } else if (value instanceof Boolean bool) {
            b.append(bool.booleanValue());
        } else if (value instanceof Number n) {
            if ((n instanceof Double d && !Double.isFinite(d)) || (n instanceof Float f && !Float.isFinite(f))) {
                throw new IllegalArgumentException("JSON has no " + n);
            }
            b.append(n instanceof java.math.BigDecimal d ? d.toString() : n.toString());
        } else if (value instanceof Map<?, ?> m) {
            b.append('{');
            boolean first = true;
            for (Map.Entry<?, ?> e : m.entrySet()) {
                if (!(e.getKey() instanceof String key)) throw new IllegalArgumentException("JSON keys are strings");
                if (!first) b.append(',');
                first = false;
                string(b, key);
                b.append(':');
                write(b, e.getValue());
            }
            b.append('}');
        } else if (value instanceof List<?> l) {
            b.append('[');
            for (int i = 0; i < l.size(); i++) {
                if (i > 0) b.append(',');
                write(b, l.get(i));
            }
            b.append(']');
        } else {
            throw new IllegalArgumentException("cannot write a " + value.getClass().getName() + " as JSON");
        }
    }

    /**
     * Appends a JSON string: quotes, backslashes and control characters escaped.
     *
     * @param b   where to write
     * @param str the text
     */
    public static void string(StringBuilder b, String str) {
        b.append('"');
        for (int i = 0; i < str.length(); i++) {
            char c = str.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                case '\b' -> b.append("\\b");
                case '\f' -> b.append("\\f");
                default -> {
                    if (c < 0x20 || c == 0x2028 || c == 0x2029) b.append(String.format("\\u%04x", (int) c));
                    else b.append(c);
                }
            }
        }
        b.append('"');
    }
}
