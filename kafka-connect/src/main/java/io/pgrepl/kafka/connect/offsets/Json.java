package io.pgrepl.kafka.connect.offsets;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The one JSON shape Debezium keeps in its offsets' strings (a list of flat objects whose values are
 * strings or null), written and read by hand: the connector has no JSON library of its own, and the
 * worker's is not part of the Connect API.
 */
public final class Json {
    private Json() {}

    /** Appends {@code s} as a JSON string. */
    public static StringBuilder string(StringBuilder b, String s) {
        b.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) b.append(String.format("\\u%04x", (int) c));
                    else b.append(c);
                }
            }
        }
        return b.append('"');
    }

    /**
     * Reads {@code [{"k": "v" | null, ...}, ...]}.
     *
     * @throws IllegalArgumentException naming {@code what} when the text is not of that shape
     */
    public static List<Map<String, String>> objects(String text, String what) {
        Reader r = new Reader(text, what);
        List<Map<String, String>> out = new ArrayList<>();
        r.expect('[');
        if (!r.skip(']')) {
            do {
                out.add(r.object());
            } while (r.skip(','));
            r.expect(']');
        }
        r.end();
        return out;
    }

    private static final class Reader {
        private final String s;
        private final String what;
        private int i;

        Reader(String s, String what) {
            this.s = s;
            this.what = what;
        }

        Map<String, String> object() {
            Map<String, String> m = new LinkedHashMap<>();
            expect('{');
            if (skip('}')) return m;
            do {
                String k = string();
                expect(':');
                space();
                if (s.startsWith("null", i)) {
                    i += 4;
                    m.put(k, null);
                } else {
                    m.put(k, string());
                }
            } while (skip(','));
            expect('}');
            return m;
        }

        String string() {
            expect('"');
            StringBuilder b = new StringBuilder();
            while (i < s.length()) {
                char c = s.charAt(i++);
                if (c == '"') return b.toString();
                if (c != '\\') {
                    b.append(c);
                    continue;
                }
                if (i >= s.length()) break;
                char e = s.charAt(i++);
                switch (e) {
                    case 'n' -> b.append('\n');
                    case 'r' -> b.append('\r');
                    case 't' -> b.append('\t');
                    case 'b' -> b.append('\b');
                    case 'f' -> b.append('\f');
                    case 'u' -> {
                        if (i + 4 > s.length()) throw bad("a short \\u escape");
                        try {
                            b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        } catch (NumberFormatException x) {
                            throw bad("a bad \\u escape");
                        }
                        i += 4;
                    }
                    default -> b.append(e);
                }
            }
            throw bad("an unterminated string");
        }

        void space() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++;
        }

        boolean skip(char c) {
            space();
            if (i < s.length() && s.charAt(i) == c) {
                i++;
                return true;
            }
            return false;
        }

        void expect(char c) {
            if (!skip(c)) throw bad("'" + c + "' expected");
        }

        void end() {
            space();
            if (i != s.length()) throw bad("text after the end");
        }

        IllegalArgumentException bad(String why) {
            return new IllegalArgumentException(what + " is not the JSON expected (" + why + " at character " + i + ")");
        }
    }
}
