package io.pgrepl.cli;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.ByteProcessor;
import io.pgrepl.codec.Lsn;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A reusable UTF-8 output buffer that JSON is written into straight from source bytes: strings
 * are escaped in place (no intermediate String per value), LSNs and numbers are formatted by small
 * routines. {@link #drainIfFull} hands large runs to the output; {@link #drain} the rest.
 */
final class JsonBytes {
    private static final byte[] HEX_LOWER = "0123456789abcdef".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
            .getBytes(StandardCharsets.US_ASCII);
    /** Drained once this full: large enough for few write calls, small enough to stay flat in memory. */
    static final int CHUNK = 256 * 1024;

    private byte[] buf = new byte[CHUNK + 4096];
    private int len;

    int length() {
        return len;
    }

    private void ensure(int more) {
        if (len + more > buf.length) buf = Arrays.copyOf(buf, Math.max(buf.length * 2, len + more));
    }

    JsonBytes raw(byte b) {
        ensure(1);
        buf[len++] = b;
        return this;
    }

    JsonBytes raw(char c) {
        return raw((byte) c);
    }

    /** ASCII text without escaping (keys, literals written by this program). */
    JsonBytes ascii(String s) {
        int n = s.length();
        ensure(n);
        for (int i = 0; i < n; i++) buf[len++] = (byte) s.charAt(i);
        return this;
    }

    JsonBytes raw(byte[] b) {
        return raw(b, 0, b.length);
    }

    JsonBytes raw(byte[] b, int off, int n) {
        ensure(n);
        System.arraycopy(b, off, buf, len, n);
        len += n;
        return this;
    }

    JsonBytes num(long v) {
        if (v == Long.MIN_VALUE) return ascii("-9223372036854775808");
        ensure(20);
        if (v < 0) {
            buf[len++] = '-';
            v = -v;
        }
        int start = len;
        do {
            buf[len++] = (byte) ('0' + v % 10);
            v /= 10;
        } while (v != 0);
        reverse(start, len - 1);
        return this;
    }

    /** {@code "X/X"} in upper-case hex, as PostgreSQL prints an LSN. */
    JsonBytes lsn(long lsn) {
        ensure(Lsn.MAX_FORMATTED_LENGTH + 2);
        buf[len++] = '"';
        len = Lsn.format(lsn, buf, len);
        buf[len++] = '"';
        return this;
    }

    private void reverse(int i, int j) {
        while (i < j) {
            byte t = buf[i];
            buf[i++] = buf[j];
            buf[j--] = t;
        }
    }

    /** A JSON string from a Java string. */
    JsonBytes str(String s) {
        if (s == null) return ascii("null");
        ensure(s.length() * 3 + 2);
        buf[len++] = '"';
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x80) {
                escapeAscii((byte) c);
            } else if (c < 0x800) {
                ensure(2);
                buf[len++] = (byte) (0xc0 | c >> 6);
                buf[len++] = (byte) (0x80 | c & 0x3f);
            } else if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                int cp = Character.toCodePoint(c, s.charAt(++i));
                ensure(4);
                buf[len++] = (byte) (0xf0 | cp >> 18);
                buf[len++] = (byte) (0x80 | cp >> 12 & 0x3f);
                buf[len++] = (byte) (0x80 | cp >> 6 & 0x3f);
                buf[len++] = (byte) (0x80 | cp & 0x3f);
            } else if (c == '\u2028' || c == '\u2029' || Character.isSurrogate(c)) {
                unicodeEscape(c); // line separators break JavaScript; a lone surrogate has no UTF-8
            } else {
                ensure(3);
                buf[len++] = (byte) (0xe0 | c >> 12);
                buf[len++] = (byte) (0x80 | c >> 6 & 0x3f);
                buf[len++] = (byte) (0x80 | c & 0x3f);
            }
        }
        ensure(1);
        buf[len++] = '"';
        return this;
    }

    /** A JSON string from UTF-8 bytes (the server's text), escaped in place. */
    JsonBytes utf8(byte[] b, int off, int n) {
        return utf8(Unpooled.wrappedBuffer(b), off, n);
    }

    /**
     * A JSON string from {@code n} UTF-8 bytes of {@code b} from {@code at}, read in place: runs
     * that need no escaping (nearly all text) are found by one scan and copied in bulk.
     */
    JsonBytes utf8(ByteBuf b, int at, int n) {
        ensure(n + 2);
        buf[len++] = '"';
        int end = at + n;
        for (int i = at; i < end; ) {
            int stop = b.forEachByte(i, end - i, NEEDS_NO_ESCAPE);
            int plain = (stop < 0 ? end : stop) - i;
            if (plain > 0) {
                raw(b, i, plain);
                i += plain;
            }
            if (stop < 0) break;
            byte c = b.getByte(i);
            if (c >= 0) {
                escapeAscii(c);
                i++;
            } else if (i + 2 < end && b.getByte(i + 1) == (byte) 0x80 && (b.getByte(i + 2) == (byte) 0xa8 || b.getByte(i + 2) == (byte) 0xa9)) {
                unicodeEscape(b.getByte(i + 2) == (byte) 0xa8 ? '\u2028' : '\u2029'); // breaks JavaScript
                i += 3;
            } else {
                raw(c); // 0xe2 starting another character
                i++;
            }
        }
        ensure(1);
        buf[len++] = '"';
        return this;
    }

    /**
     * Bytes copied as they are: printable ASCII but the quote, the backslash and DEL, and UTF-8
     * sequence bytes except 0xe2 (which starts U+2028 and U+2029).
     */
    private static final ByteProcessor NEEDS_NO_ESCAPE =
            c -> c >= 0x20 ? c != '"' && c != '\\' && c != 0x7f : c < 0 && c != (byte) 0xe2;

    /** {@code n} bytes of {@code b} from {@code at}, as they are. */
    JsonBytes raw(ByteBuf b, int at, int n) {
        ensure(n);
        b.getBytes(at, buf, len, n);
        len += n;
        return this;
    }

    private void escapeAscii(byte c) {
        ensure(6);
        switch (c) {
            case '"' -> { buf[len++] = '\\'; buf[len++] = '"'; }
            case '\\' -> { buf[len++] = '\\'; buf[len++] = '\\'; }
            case '\n' -> { buf[len++] = '\\'; buf[len++] = 'n'; }
            case '\r' -> { buf[len++] = '\\'; buf[len++] = 'r'; }
            case '\t' -> { buf[len++] = '\\'; buf[len++] = 't'; }
            default -> {
                if (c < 0x20 || c == 0x7f) unicodeEscape((char) c);
                else buf[len++] = c;
            }
        }
    }

    private void unicodeEscape(char c) {
        ensure(6);
        buf[len++] = '\\';
        buf[len++] = 'u';
        buf[len++] = HEX_LOWER[c >> 12 & 0xf];
        buf[len++] = HEX_LOWER[c >> 8 & 0xf];
        buf[len++] = HEX_LOWER[c >> 4 & 0xf];
        buf[len++] = HEX_LOWER[c & 0xf];
    }

    /** A JSON string of the bytes in standard base64 (RFC 4648, padded). */
    JsonBytes base64(byte[] b, int off, int n) {
        ensure((n + 2) / 3 * 4 + 2);
        buf[len++] = '"';
        int i = off;
        int end = off + n;
        for (; i + 2 < end; i += 3) {
            int v = (b[i] & 0xff) << 16 | (b[i + 1] & 0xff) << 8 | b[i + 2] & 0xff;
            buf[len++] = B64[v >> 18];
            buf[len++] = B64[v >> 12 & 0x3f];
            buf[len++] = B64[v >> 6 & 0x3f];
            buf[len++] = B64[v & 0x3f];
        }
        if (i < end) {
            int v = (b[i] & 0xff) << 16 | (i + 1 < end ? (b[i + 1] & 0xff) << 8 : 0);
            buf[len++] = B64[v >> 18];
            buf[len++] = B64[v >> 12 & 0x3f];
            buf[len++] = i + 1 < end ? B64[v >> 6 & 0x3f] : (byte) '=';
            buf[len++] = '=';
        }
        buf[len++] = '"';
        return this;
    }

    /** Writes everything out once the buffer holds a chunk's worth. */
    void drainIfFull(OutputStream out) throws IOException {
        if (len >= CHUNK) drain(out);
    }

    void drain(OutputStream out) throws IOException {
        if (len > 0) out.write(buf, 0, len);
        len = 0;
        if (buf.length > 4 * CHUNK) buf = new byte[CHUNK + 4096]; // one huge value grew it: shrink again
    }

    /** Everything rendered, as a copy; the buffer is empty afterwards. */
    byte[] take() {
        byte[] b = java.util.Arrays.copyOf(buf, len);
        len = 0;
        if (buf.length > 4 * CHUNK) buf = new byte[CHUNK + 4096];
        return b;
    }

    /** Drops what was written since {@code mark} (a {@link #length()}). */
    void truncate(int mark) {
        len = mark;
    }

    @Override
    public String toString() {
        return new String(buf, 0, len, StandardCharsets.UTF_8);
    }
}
