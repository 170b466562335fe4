package io.pgrepl.codec.value;

import io.netty.buffer.ByteBuf;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;

/** numeric in text and binary form (numeric_send: ndigits, weight, sign, dscale, base-10000 digits). */
final class PgNumeric {
    private static final int POS = 0x0000;
    private static final int NEG = 0x4000;
    private static final int NAN = 0xC000;
    private static final int PINF = 0xD000;
    private static final int NINF = 0xF000;
    /** NUMERIC_DSCALE_MASK: the largest display scale the server produces. */
    private static final int MAX_DSCALE = 0x3FFF;

    private PgNumeric() {}

    static Number binary(ByteBuf buf, int index, int length) {
        if (length < 8) throw TextScan.bad("numeric", 0, "binary numeric needs an 8-byte header, got " + length);
        int ndigits = buf.getShort(index);
        int weight = buf.getShort(index + 2);
        int sign = buf.getUnsignedShort(index + 4);
        int dscale = buf.getShort(index + 6);
        if (ndigits < 0 || length != 8 + 2 * ndigits) {
            throw TextScan.bad("numeric", 0, "digit count " + ndigits + " does not match length " + length);
        }
        switch (sign) {
            case NAN -> {
                return Double.NaN;
            }
            case PINF -> {
                return Double.POSITIVE_INFINITY;
            }
            case NINF -> {
                return Double.NEGATIVE_INFINITY;
            }
            case POS, NEG -> {
            }
            default -> throw TextScan.bad("numeric", 4, String.format("unknown sign 0x%04x", sign));
        }
        if (dscale < 0 || dscale > MAX_DSCALE) throw TextScan.bad("numeric", 6, "display scale " + dscale + " out of range");
        if (ndigits == 0) return BigDecimal.ZERO.setScale(dscale);
        char[] digits = new char[ndigits * 4];
        for (int i = 0; i < ndigits; i++) {
            int d = buf.getShort(index + 8 + 2 * i);
            if (d < 0 || d > 9999) throw TextScan.bad("numeric", 8 + 2 * i, "digit " + d + " outside 0..9999");
            for (int k = 3; k >= 0; k--) {
                digits[i * 4 + k] = (char) ('0' + d % 10);
                d /= 10;
            }
        }
        BigInteger unscaled = new BigInteger(new String(digits));
        if (sign == NEG) unscaled = unscaled.negate();
        // Digit i is worth 10000^(weight - i); the last one sets the scale.
        int scale = 4 * (ndigits - 1 - weight);
        try {
            return new BigDecimal(unscaled, scale).setScale(dscale, RoundingMode.UNNECESSARY);
        } catch (ArithmeticException e) {
            throw TextScan.bad("numeric", 6, "digits beyond the display scale " + dscale);
        }
    }

    static Number text(ByteBuf buf, int index, int length) {
        String s = buf.toString(index, length, StandardCharsets.US_ASCII);
        switch (s) {
            case "NaN":
                return Double.NaN;
            case "Infinity":
                return Double.POSITIVE_INFINITY;
            case "-Infinity":
                return Double.NEGATIVE_INFINITY;
            default:
                break;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (!(c >= '0' && c <= '9' || c == '.' || c == '-' || c == '+')) {
                throw TextScan.bad("numeric", i, "unexpected character");
            }
        }
        try {
            return new BigDecimal(s);
        } catch (NumberFormatException e) {
            throw TextScan.bad("numeric", 0, "not a number");
        }
    }
}
