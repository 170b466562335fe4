package io.pgrepl.codec.pgoutput;

/**
 * The common case of an integer's text form read straight from a byte array: an optional '-' and
 * few enough digits that no overflow check is needed. Anything else (a '+', a blank, too many
 * digits, an empty value) is left to {@code PgValues}, which checks and reports it: this method
 * only answers "not the fast case". Small on purpose, for the inliner.
 */
final class TextDigits {
    /** Returned when the bytes are not the fast case; no value of up to 18 digits is this. */
    static final long NOT_FAST = Long.MIN_VALUE;
    /** Digits an int4 can always hold (999,999,999). */
    static final int INT4_DIGITS = 9;
    /** Digits an int8 can always hold. */
    static final int INT8_DIGITS = 18;

    private TextDigits() {}

    static long parse(byte[] a, int from, int length, int maxDigits) {
        int end = from + length;
        int i = from;
        boolean neg = length > 1 && a[i] == '-';
        if (neg) i++;
        if (end - i > maxDigits || i >= end) return NOT_FAST;
        long v = 0;
        for (; i < end; i++) {
            int d = a[i] - '0';
            if (d < 0 || d > 9) return NOT_FAST;
            v = v * 10 + d;
        }
        return neg ? -v : v;
    }
}
