package io.pgrepl.client.internal.config;

import io.pgrepl.client.config.ConnInfoException;
import java.util.LinkedHashMap;

/**
 * The keyword/value form of a connection string, {@code key=value key2='quoted \' value'}
 * (backslash escapes the next character), turned into libpq parameters in the order given; the
 * counterpart of {@link ConnInfoUri}. Errors never repeat a token: a stray one is usually the
 * tail of an unquoted password.
 */
final class ConnInfoKeywordValue {
    private ConnInfoKeywordValue() {}

    /**
     * Splits the string into parameters; {@link ConnInfo} validates the values.
     *
     * @param s the key=value string
     * @return the parameters, a later occurrence replacing an earlier one
     * @throws ConnInfoException if a parameter is unknown or the string is malformed
     */
    static LinkedHashMap<String, String> parse(String s) {
        LinkedHashMap<String, String> out = new LinkedHashMap<>();
        String previousKey = null;
        int i = 0;
        int n = s.length();
        while (true) {
            while (i < n && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            if (i >= n) {
                break;
            }
            int start = i;
            while (i < n && s.charAt(i) != '=' && !Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            String key = s.substring(start, i);
            while (i < n && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            // Tokens are never echoed: a stray token is usually the tail of an unquoted password.
            if (i >= n || s.charAt(i) != '=') {
                throw new ConnInfoException("missing \"=\" after the token at position " + start
                        + (previousKey == null ? "" : " (which follows the value of \"" + previousKey + "\"; quote values that contain spaces)")
                        + " in connection info string");
            }
            if (!ConnInfoParameters.NAMES.contains(key)) {
                String named = ConnInfoParameters.unknownName(key);
                throw new ConnInfoException("invalid connection option" + (named.isEmpty() ? " at position " + start : named));
            }
            previousKey = key;
            i++;
            while (i < n && Character.isWhitespace(s.charAt(i))) {
                i++;
            }
            StringBuilder value = new StringBuilder();
            if (i < n && s.charAt(i) == '\'') {
                i++;
                boolean closed = false;
                while (i < n) {
                    char c = s.charAt(i++);
                    if (c == '\\' && i < n) {
                        value.append(s.charAt(i++));
                    } else if (c == '\'') {
                        closed = true;
                        break;
                    } else {
                        value.append(c);
                    }
                }
                if (!closed) {
                    throw new ConnInfoException("unterminated quoted string in connection info string");
                }
            } else {
                while (i < n && !Character.isWhitespace(s.charAt(i))) {
                    char c = s.charAt(i++);
                    if (c == '\\' && i < n) {
                        value.append(s.charAt(i++));
                    } else {
                        value.append(c);
                    }
                }
            }
            ConnInfoParameters.put(out, key, value.toString());
        }
        return out;
    }
}
