package io.pgrepl.client.snapshot.incremental;

/**
 * Guards a user's additional condition before it is pasted into a chunk's WHERE clause. A signal
 * can come from any session able to emit a logical message, and chunks run over the simple query
 * protocol, which runs every statement of a string: the condition must stay one expression inside
 * its parentheses. So, outside quoted text: no {@code ;}, no comment (which could hide the closing
 * parenthesis), parentheses balanced and never closing more than they opened. Backslashes in plain
 * {@code '...'} literals read differently under {@code standard_conforming_strings} on and off, so
 * the condition must pass under both readings. It remains SQL run with the stream's role: a
 * condition may still call functions, which is why signals should come from trusted roles.
 */
final class SqlCondition {
    private SqlCondition() {}

    /**
     * Checks a condition.
     *
     * @param condition the condition
     * @return {@code condition}
     * @throws IllegalArgumentException naming what is wrong and where
     */
    static String requireSingleExpression(String condition) {
        check(condition, true);
        check(condition, false);
        return condition;
    }

    private static void check(String s, boolean standardStrings) {
        int depth = 0;
        int i = 0;
        int n = s.length();
        while (i < n) {
            char c = s.charAt(i);
            boolean identBefore = i > 0 && identifierPart(s.charAt(i - 1));
            if (c == '\0') throw bad("a NUL character", i);
            if (c == ';') throw bad("a ';' (one expression only)", i);
            if (c == '-' && i + 1 < n && s.charAt(i + 1) == '-') throw bad("a comment", i);
            if (c == '/' && i + 1 < n && s.charAt(i + 1) == '*') throw bad("a comment", i);
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                if (--depth < 0) throw bad("a ')' without its '('", i);
            } else if (c == '\'') {
                boolean escapes = !standardStrings
                        || (i > 0 && (s.charAt(i - 1) == 'e' || s.charAt(i - 1) == 'E') && !(i > 1 && identifierPart(s.charAt(i - 2))));
                i = endOfQuoted(s, i, '\'', escapes);
                continue;
            } else if (c == '"') {
                i = endOfQuoted(s, i, '"', false);
                continue;
            } else if (c == '$' && !identBefore) {
                int tagEnd = i + 1;
                while (tagEnd < n && identifierPart(s.charAt(tagEnd)) && s.charAt(tagEnd) != '$') tagEnd++;
                boolean tagStartsOk = tagEnd == i + 1 || !Character.isDigit(s.charAt(i + 1));
                if (tagEnd < n && s.charAt(tagEnd) == '$' && tagStartsOk) {
                    String tag = s.substring(i, tagEnd + 1);
                    int close = s.indexOf(tag, tagEnd + 1);
                    if (close < 0) throw bad("an unterminated dollar-quoted string", i);
                    i = close + tag.length();
                    continue;
                }
            }
            i++;
        }
        if (depth != 0) throw bad("a '(' without its ')'", n);
    }

    /** The index after the closing quote; a doubled quote stays inside, as does a backslash-escaped one. */
    private static int endOfQuoted(String s, int open, char quote, boolean backslashEscapes) {
        int i = open + 1;
        while (i < s.length()) {
            char c = s.charAt(i);
            if (c == '\0') throw bad("a NUL character", i);
            if (backslashEscapes && c == '\\') {
                i += 2;
            } else if (c == quote) {
                if (i + 1 < s.length() && s.charAt(i + 1) == quote) i += 2;
                else return i + 1;
            } else {
                i++;
            }
        }
        throw bad("an unterminated " + (quote == '"' ? "quoted identifier" : "string literal"), open);
    }

    private static boolean identifierPart(char c) {
        return Character.isLetterOrDigit(c) || c == '_' || c == '$' || c >= 0x80;
    }

    private static IllegalArgumentException bad(String what, int offset) {
        return new IllegalArgumentException("additional condition has " + what + " at offset " + offset);
    }
}
