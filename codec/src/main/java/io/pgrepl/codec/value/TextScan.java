package io.pgrepl.codec.value;

import io.netty.buffer.ByteBuf;

import java.nio.charset.StandardCharsets;

/**
 * Reads numbers from a value's text form where it lies in the buffer, with no String in between
 * for integers, and the bounds and error helpers the value decoders share.
 */
final class TextScan {
    private TextScan() {
    }

    private static final long MIN_DIV_10 = Long.MIN_VALUE / 10;

    static long parseLong(ByteBuf buf, int index, int length, String type) {
        if (length <= 0) throw bad(type, 0, "empty");
        int i = 0;
        boolean neg = false;
        byte first = buf.getByte(index);
        if (first == '-' || first == '+') {
            neg = first == '-';
            i = 1;
            if (length == 1) throw bad(type, 0, "sign without digits");
        }
        long v = 0; // accumulated negatively so Long.MIN_VALUE parses
        for (; i < length; i++) {
            int d = buf.getByte(index + i) - '0';
            if (d < 0 || d > 9) throw bad(type, i, "not a digit");
            // Two comparisons, as Long.parseLong does, instead of a division per digit.
            if (v < MIN_DIV_10) throw bad(type, i, "out of range");
            v *= 10;
            if (v < Long.MIN_VALUE + d) throw bad(type, i, "out of range");
            v -= d;
        }
        if (!neg) {
            if (v == Long.MIN_VALUE) throw bad(type, 0, "out of range");
            return -v;
        }
        return v;
    }

    static double parseDouble(ByteBuf buf, int index, int length, String type) {
        String s = floatText(buf, index, length, type);
        try {
            return Double.parseDouble(s);
        } catch (NumberFormatException e) {
            throw bad(type, 0, "not a number");
        }
    }

    static String floatText(ByteBuf buf, int index, int length, String type) {
        for (int i = 0; i < length; i++) {
            byte c = buf.getByte(index + i);
            // Double.parseDouble accepts hex floats, 'd'/'f' suffixes and blanks; the server never sends them.
            if (!(c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'
                    || c == 'N' || c == 'a' || c == 'I' || c == 'n' || c == 'f' || c == 'i' || c == 't' || c == 'y')) {
                throw bad(type, i, "unexpected character");
            }
        }
        String s = buf.toString(index, length, StandardCharsets.US_ASCII);
        if (s.endsWith("f")) throw bad(type, length - 1, "unexpected character");
        return s;
    }

    static int hex(byte c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    }

    static void checkRange(ByteBuf buf, int index, int length) {
        if (length < 0 || index < 0 || index > buf.capacity() - length) {
            throw new IllegalArgumentException("value range [" + index + ", +" + length + ") outside buffer");
        }
    }

    static MalformedValueException bad(String type, int offset, String reason) {
        return new MalformedValueException(type, offset, reason);
    }
}
