package io.pgrepl.client.internal;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A small strict JSON reader (RFC 8259) for the little JSON the client reads, such as snapshot
 * signals; the client has no JSON library and takes none. Objects become insertion-ordered
 * unmodifiable maps, arrays unmodifiable lists, numbers {@link BigDecimal}, {@code null} Java
 * null. Strict: no comments, trailing commas, single quotes, leading zeros, NaN, raw control
 * characters, unpaired surrogate escapes, duplicate keys or trailing text. Bounded: input longer
 * than the limit is refused before reading, nesting deeper than the limit is refused, and nothing
 * is allocated beyond what the input holds. Errors say what was expected and at which offset.
 */
public final class JsonReader {
    private final int maxLength;
    private final int maxDepth;
    private String s;
    private int pos;

    /**
     * A reader with limits.
     *
     * @param maxLength the longest input accepted, in chars
     * @param maxDepth  the deepest nesting of arrays and objects accepted
     */
    public JsonReader(int maxLength, int maxDepth) {
        if (maxLength < 1 || maxDepth < 1) throw new IllegalArgumentException("limits must be positive");
        this.maxLength = maxLength;
        this.maxDepth = maxDepth;
    }

    /** Invalid or over-limit JSON; {@link #offset()} says where. */
    public static final class JsonException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;
        private final int offset;

        JsonException(String what, int offset) {
            super(what + " at offset " + offset);
            this.offset = offset;
        }

        /** {@return the offset (in chars) of the problem in the input} */
        public int offset() {
            return offset;
        }
    }

    /**
     * Reads one JSON value making up the whole text (whitespace around it allowed).
     *
     * @param text the JSON text
     * @return the value: Map, List, String, BigDecimal, Boolean or null
     * @throws JsonException for invalid JSON or a limit exceeded
     */
    public synchronized Object read(String text) {
        if (text.length() > maxLength) throw new JsonException("text longer than " + maxLength + " characters", maxLength);
        s = text;
        pos = 0;
        try {
            skipWhitespace();
            Object v = value(0);
            skipWhitespace();
            if (pos < s.length()) throw unexpected("end of input");
            return v;
        } finally {
            s = null;
        }
    }

    private Object value(int depth) {
        if (pos >= s.length()) throw new JsonException("unexpected end of input, expected a value", pos);
        char c = s.charAt(pos);
        switch (c) {
            case '{':
                return object(depth + 1);
            case '[':
                return array(depth + 1);
            case '"':
                return string();
            case 't':
                return literal("true", Boolean.TRUE);
            case 'f':
                return literal("false", Boolean.FALSE);
            case 'n':
                return literal("null", null);
            default:
                if (c == '-' || (c >= '0' && c <= '9')) return number();
                throw unexpected("a value");
        }
    }

    private Map<String, Object> object(int depth) {
        if (depth > maxDepth) throw new JsonException("nesting deeper than " + maxDepth, pos);
        pos++;
        Map<String, Object> out = new LinkedHashMap<>();
        skipWhitespace();
        if (peek() == '}') {
            pos++;
            return Collections.unmodifiableMap(out);
        }
        while (true) {
            if (peek() != '"') throw unexpected("'\"' starting a key");
            int keyAt = pos;
            String key = string();
            if (out.containsKey(key)) throw new JsonException("duplicate key \"" + key + "\"", keyAt);
            skipWhitespace();
            expect(':');
            skipWhitespace();
            out.put(key, value(depth));
            skipWhitespace();
            if (peek() == ',') {
                pos++;
                skipWhitespace();
            } else if (peek() == '}') {
                pos++;
                return Collections.unmodifiableMap(out);
            } else {
                throw unexpected("',' or '}'");
            }
        }
    }

    private List<Object> array(int depth) {
        if (depth > maxDepth) throw new JsonException("nesting deeper than " + maxDepth, pos);
        pos++;
        List<Object> out = new ArrayList<>();
        skipWhitespace();
        if (peek() == ']') {
            pos++;
            return Collections.unmodifiableList(out);
        }
        while (true) {
            out.add(value(depth));
            skipWhitespace();
            if (peek() == ',') {
                pos++;
                skipWhitespace();
            } else if (peek() == ']') {
                pos++;
                return Collections.unmodifiableList(out);
            } else {
                throw unexpected("',' or ']'");
            }
        }
    }

    private String string() {
        int open = pos++;
        StringBuilder b = null;
        int runStart = pos;
        while (true) {
            if (pos >= s.length()) throw new JsonException("unterminated string starting", open);
            char c = s.charAt(pos);
            if (c == '"') {
                String tail = s.substring(runStart, pos++);
                return b == null ? tail : b.append(tail).toString();
            }
            if (c < 0x20) throw new JsonException("raw control character " + show(c) + " in a string", pos);
            if (c != '\\') {
                pos++;
                continue;
            }
            if (b == null) b = new StringBuilder();
            b.append(s, runStart, pos);
            int escapeAt = pos++;
            if (pos >= s.length()) throw new JsonException("unterminated string starting", open);
            char e = s.charAt(pos++);
            switch (e) {
                case '"', '\\', '/' -> b.append(e);
                case 'b' -> b.append('\b');
                case 'f' -> b.append('\f');
                case 'n' -> b.append('\n');
                case 'r' -> b.append('\r');
                case 't' -> b.append('\t');
                case 'u' -> {
                    char u = hex4(escapeAt);
                    if (Character.isHighSurrogate(u)) {
                        if (pos + 1 < s.length() && s.charAt(pos) == '\\' && s.charAt(pos + 1) == 'u') {
                            int lowAt = pos;
                            pos += 2;
                            char low = hex4(lowAt);
                            if (!Character.isLowSurrogate(low)) throw new JsonException("unpaired surrogate escape", escapeAt);
                            b.append(u).append(low);
                        } else {
                            throw new JsonException("unpaired surrogate escape", escapeAt);
                        }
                    } else if (Character.isLowSurrogate(u)) {
                        throw new JsonException("unpaired surrogate escape", escapeAt);
                    } else {
                        b.append(u);
                    }
                }
                default -> throw new JsonException("invalid escape \\" + show(e), escapeAt);
            }
            runStart = pos;
        }
    }

    private char hex4(int escapeAt) {
        if (pos + 4 > s.length()) throw new JsonException("truncated \\u escape", escapeAt);
        int v = 0;
        for (int i = 0; i < 4; i++) {
            int d = Character.digit(s.charAt(pos + i), 16);
            if (d < 0 || s.charAt(pos + i) > 'f') throw new JsonException("invalid \\u escape", escapeAt);
            v = v * 16 + d;
        }
        pos += 4;
        return (char) v;
    }

    private BigDecimal number() {
        int start = pos;
        if (peek() == '-') pos++;
        if (peek() == '0') {
            pos++;
            if (isDigit(peek())) throw new JsonException("leading zero in a number", start);
        } else if (isDigit(peek())) {
            while (isDigit(peek())) pos++;
        } else {
            throw unexpected("a digit");
        }
        if (peek() == '.') {
            pos++;
            if (!isDigit(peek())) throw unexpected("a digit after '.'");
            while (isDigit(peek())) pos++;
        }
        if (peek() == 'e' || peek() == 'E') {
            pos++;
            if (peek() == '+' || peek() == '-') pos++;
            if (!isDigit(peek())) throw unexpected("a digit in the exponent");
            while (isDigit(peek())) pos++;
        }
        try {
            return new BigDecimal(s.substring(start, pos));
        } catch (NumberFormatException | ArithmeticException e) {
            throw new JsonException("number out of range", start);
        }
    }

    private Object literal(String word, Object value) {
        if (!s.startsWith(word, pos)) throw unexpected("a value");
        pos += word.length();
        return value;
    }

    private void expect(char c) {
        if (peek() != c) throw unexpected("'" + c + "'");
        pos++;
    }

    /** The char at the position, or -1 past the end (no valid token starts with U+FFFF). */
    private int peek() {
        return pos < s.length() ? s.charAt(pos) : -1;
    }

    private static boolean isDigit(int c) {
        return c >= '0' && c <= '9';
    }

    private void skipWhitespace() {
        while (pos < s.length()) {
            char c = s.charAt(pos);
            if (c != ' ' && c != '\t' && c != '\n' && c != '\r') return;
            pos++;
        }
    }

    private JsonException unexpected(String expected) {
        if (pos >= s.length()) return new JsonException("unexpected end of input, expected " + expected, pos);
        return new JsonException("unexpected " + show(s.charAt(pos)) + ", expected " + expected, pos);
    }

    private static String show(char c) {
        return c < 0x20 || c == 0x7f || Character.isSurrogate(c) ? String.format("U+%04X", (int) c) : "'" + c + "'";
    }
}
