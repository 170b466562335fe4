package io.pgrepl.flink;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A reusable UTF-8 buffer for {@link DebeziumJsonDeserializer}: values are copied into it from a
 * row's bytes as the server sent them (escaped where JSON needs it), and each event becomes one
 * String at the end, so text values are never decoded to a String of their own and then escaped
 * char by char. Not thread-safe: one per reader.
 */
final class JsonOut {
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private byte[] buf = new byte[512];
    private int len;

    void reset() {
        len = 0;
    }

    /** {@return the bytes written since {@link #reset()}, as a String} */
    String string() {
        return new String(buf, 0, len, StandardCharsets.UTF_8);
    }

    private void ensure(int more) {
        if (len + more > buf.length) buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + more));
    }

    JsonOut raw(char c) {
        ensure(1);
        buf[len++] = (byte) c;
        return this;
    }

    /** Bytes made by {@link #bytes(String)}, as they are. */
    JsonOut raw(byte[] b) {
        return raw(b, 0, b.length);
    }

    /** {@return {@code s} as a JSON string's bytes, escaped, for writing again and again with {@link #raw(byte[])}} */
    static byte[] bytes(String s) {
        JsonOut o = new JsonOut();
        o.str(s);
        return Arrays.copyOf(o.buf, o.len);
    }

    /** ASCII that needs no escape (syntax, numbers, constants). */
    JsonOut ascii(String s) {
        int n = s.length();
        ensure(n);
        for (int i = 0; i < n; i++) buf[len++] = (byte) s.charAt(i);
        return this;
    }

    JsonOut num(long v) {
        return ascii(Long.toString(v));
    }

    /** Bytes that need no escape, as they are (a number's text). */
    JsonOut raw(byte[] b, int from, int n) {
        ensure(n);
        System.arraycopy(b, from, buf, len, n);
        len += n;
        return this;
    }

    /** A JSON string of UTF-8 bytes, escaped (every byte JSON escapes is ASCII, so multi-byte characters pass through). */
    JsonOut str(byte[] b, int from, int n) {
        ensure(n + 2);
        buf[len++] = '"';
        int run = from;
        int end = from + n;
        for (int i = from; i < end; i++) {
            byte c = b[i];
            if ((c >= 0x20 || c < 0) && c != '"' && c != '\\') continue;
            raw(b, run, i - run);
            escape((char) c);
            run = i + 1;
        }
        raw(b, run, end - run);
        return raw('"');
    }

    /** A JSON string of {@code s}, escaped; null as JSON null. */
    JsonOut str(String s) {
        if (s == null) return ascii("null");
        int n = s.length();
        for (int i = 0; i < n; i++) {
            if (s.charAt(i) >= 0x80) {
                byte[] u = s.getBytes(StandardCharsets.UTF_8);
                return str(u, 0, u.length);
            }
        }
        ensure(n + 2);
        buf[len++] = '"';
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c >= 0x20 && c != '"' && c != '\\') {
                ensure(1);
                buf[len++] = (byte) c;
            } else {
                escape(c);
            }
        }
        return raw('"');
    }

    private void escape(char c) {
        switch (c) {
            case '"' -> ascii("\\\"");
            case '\\' -> ascii("\\\\");
            case '\n' -> ascii("\\n");
            case '\r' -> ascii("\\r");
            case '\t' -> ascii("\\t");
            default -> {
                ensure(6);
                buf[len++] = '\\';
                buf[len++] = 'u';
                buf[len++] = '0';
                buf[len++] = '0';
                buf[len++] = HEX[(c >> 4) & 0xf];
                buf[len++] = HEX[c & 0xf];
            }
        }
    }

    /**
     * timestamptz text of a UTC session, {@code YYYY-MM-DD HH:MM:SS[.f]+00}, as {@link java.time.Instant#toString()}
     * prints the same instant ({@code "YYYY-MM-DDTHH:MM:SS[.fff]Z"}, the fraction padded to 3 or 6 digits);
     * false, writing nothing, for any other shape (another offset, BC, infinity, a year past 9999).
     */
    boolean utcTimestamp(byte[] b, int at, int n) {
        if (n < 22 || b[at + n - 3] != '+' || b[at + n - 2] != '0' || b[at + n - 1] != '0' || b[at + 10] != ' '
                || b[at + 4] != '-' || b[at + 7] != '-' || b[at + 13] != ':' || b[at + 16] != ':') {
            return false;
        }
        int fraction = n - 3 - 19; // ".ffffff" or nothing
        if (fraction != 0 && (fraction < 2 || fraction > 7 || b[at + 19] != '.')) return false;
        for (int i = 0; i < 19 + fraction; i++) {
            byte c = b[at + i];
            if (i != 4 && i != 7 && i != 10 && i != 13 && i != 16 && i != 19 && (c < '0' || c > '9')) return false;
        }
        ensure(n + 8);
        raw('"').raw(b, at, 10).raw('T').raw(b, at + 11, 8);
        if (fraction > 0) {
            raw(b, at + 19, fraction);
            for (int pad = (3 - (fraction - 1) % 3) % 3; pad > 0; pad--) raw('0');
        }
        return raw('Z').raw('"') != null;
    }
}
