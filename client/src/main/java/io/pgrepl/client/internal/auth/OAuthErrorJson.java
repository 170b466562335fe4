package io.pgrepl.client.internal.auth;

import io.pgrepl.client.auth.AuthenticationException;
import io.pgrepl.client.auth.AuthenticationException.Reason;
import io.pgrepl.client.auth.OAuthErrorResult;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Reads the server's OAUTHBEARER error result (RFC 7628 section 3.2.2; see {@link OAuthErrorResult}).
 * Members other than {@code status}, {@code scope} and {@code openid-configuration} are skipped.
 * A strict little parser rather than a JSON library, so that the client module keeps its few
 * dependencies; nesting is bounded so hostile input cannot recurse deep.
 */
final class OAuthErrorJson {
    private static final int MAX_NESTING = 8;

    private OAuthErrorJson() {}

    /**
     * Parses the server's bytes.
     *
     * @param json the AuthenticationSASLContinue payload
     * @return the three members
     * @throws AuthenticationException {@link Reason#MALFORMED_SERVER_MESSAGE} for anything but a
     *         UTF-8 JSON object with string-valued, unique members of those names and a status
     */
    static OAuthErrorResult parse(byte[] json) {
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(json)).toString();
        } catch (CharacterCodingException e) {
            throw malformed("it is not valid UTF-8");
        }
        Parser p = new Parser(text);
        p.skipSpace();
        if (!p.peek('{')) throw malformed("the top-level element must be an object");
        String[] fields = new String[3];
        p.object(0, fields);
        p.skipSpace();
        if (p.pos != text.length()) throw malformed("unexpected data after the object");
        if (fields[0] == null) throw malformed("it has no status");
        return new OAuthErrorResult(fields[0], fields[1], fields[2]);
    }

    private static AuthenticationException malformed(String why) {
        return new AuthenticationException(Reason.MALFORMED_SERVER_MESSAGE,
                "could not parse the server's OAUTHBEARER error result: " + why);
    }

    private static final class Parser {
        private static final String[] NAMES = {"status", "scope", "openid-configuration"};
        private final String s;
        private int pos;

        Parser(String s) {
            this.s = s;
        }

        boolean peek(char c) {
            return pos < s.length() && s.charAt(pos) == c;
        }

        void skipSpace() {
            while (pos < s.length() && " \t\r\n".indexOf(s.charAt(pos)) >= 0) pos++;
        }

        void expect(char c) {
            skipSpace();
            if (!peek(c)) throw malformed("expected '" + c + "' at offset " + pos);
            pos++;
        }

        /** An object; at depth 0 the wanted members are captured into {@code fields}. */
        void object(int depth, String[] fields) {
            if (depth >= MAX_NESTING) throw malformed("JSON is nested too deeply");
            expect('{');
            skipSpace();
            if (peek('}')) {
                pos++;
                return;
            }
            while (true) {
                skipSpace();
                String name = string();
                expect(':');
                skipSpace();
                int wanted = fields == null ? -1 : java.util.Arrays.asList(NAMES).indexOf(name);
                if (wanted >= 0) {
                    if (!peek('"')) throw malformed("field \"" + name + "\" must be a string");
                    if (fields[wanted] != null) throw malformed("field \"" + name + "\" is duplicated");
                    fields[wanted] = string();
                } else {
                    value(depth + 1);
                }
                skipSpace();
                if (peek(',')) {
                    pos++;
                } else {
                    expect('}');
                    return;
                }
            }
        }

        void value(int depth) {
            skipSpace();
            if (pos >= s.length()) throw malformed("unexpected end of data");
            char c = s.charAt(pos);
            if (c == '{') {
                object(depth, null);
            } else if (c == '[') {
                if (depth >= MAX_NESTING) throw malformed("JSON is nested too deeply");
                pos++;
                skipSpace();
                if (peek(']')) {
                    pos++;
                    return;
                }
                while (true) {
                    value(depth + 1);
                    skipSpace();
                    if (peek(',')) {
                        pos++;
                    } else {
                        expect(']');
                        return;
                    }
                }
            } else if (c == '"') {
                string();
            } else if (s.startsWith("true", pos) || s.startsWith("null", pos)) {
                pos += 4;
            } else if (s.startsWith("false", pos)) {
                pos += 5;
            } else {
                int start = pos;
                while (pos < s.length() && "+-0123456789.eE".indexOf(s.charAt(pos)) >= 0) pos++;
                if (pos == start) throw malformed("unexpected character at offset " + pos);
            }
        }

        String string() {
            if (!peek('"')) throw malformed("expected a string at offset " + pos);
            pos++;
            StringBuilder b = new StringBuilder();
            while (true) {
                if (pos >= s.length()) throw malformed("unterminated string");
                char c = s.charAt(pos++);
                if (c == '"') return b.toString();
                if (c < 0x20) throw malformed("control character in a string");
                if (c != '\\') {
                    b.append(c);
                    continue;
                }
                if (pos >= s.length()) throw malformed("unterminated string");
                char e = s.charAt(pos++);
                switch (e) {
                    case '"', '\\', '/' -> b.append(e);
                    case 'b' -> b.append('\b');
                    case 'f' -> b.append('\f');
                    case 'n' -> b.append('\n');
                    case 'r' -> b.append('\r');
                    case 't' -> b.append('\t');
                    case 'u' -> {
                        if (pos + 4 > s.length()) throw malformed("bad \\u escape");
                        try {
                            b.append((char) Integer.parseInt(s.substring(pos, pos + 4), 16));
                        } catch (NumberFormatException x) {
                            throw malformed("bad \\u escape");
                        }
                        pos += 4;
                    }
                    default -> throw malformed("bad escape at offset " + (pos - 1));
                }
            }
        }
    }
}
