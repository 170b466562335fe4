package io.pgrepl.codec;

/**
 * Log sequence numbers as primitive {@code long}s, so the hot path never boxes; and, where a
 * value must be an object (a decoded {@code pg_lsn} column, see
 * {@link io.pgrepl.codec.value.PgValues#decode}), an immutable {@code Lsn} that prints as the
 * server does and orders as WAL positions do.
 *
 * <p>An LSN is an unsigned 64-bit WAL position; compare with {@link #compare}, never with
 * {@code <}. The text form is {@code X/X}: servers 10 to 18 print the halves unpadded, newer
 * ones pad the lower half to eight digits, and both parse here.
 */
public final class Lsn implements Comparable<Lsn> {
    /** InvalidXLogRecPtr: "no position", e.g. XLogData walStart of a Relation message. */
    public static final long INVALID = 0L;

    private final long value;

    private Lsn(long value) {
        this.value = value;
    }

    /**
     * The position as a value object.
     *
     * @param lsn the WAL position (unsigned)
     * @return an {@code Lsn} holding it
     */
    public static Lsn of(long lsn) {
        return new Lsn(lsn);
    }

    /** {@return the WAL position as an unsigned 64-bit number (the bytes since 0/0)} */
    public long value() {
        return value;
    }

    /** {@return {@code X/X}, as the server prints it} */
    @Override
    public String toString() {
        return format(value);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Lsn other && other.value == value;
    }

    @Override
    public int hashCode() {
        return Long.hashCode(value);
    }

    /** Orders as WAL positions: unsigned. */
    @Override
    public int compareTo(Lsn other) {
        return Long.compareUnsigned(value, other.value);
    }

    /**
     * Parses {@code X/X} (one to eight hex digits per half).
     *
     * @param text the LSN as PostgreSQL prints it, e.g. {@code 16/B374D848}
     * @return the LSN
     * @throws IllegalArgumentException if {@code text} is not an LSN
     */
    public static long parse(CharSequence text) {
        int slash = -1;
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == '/') {
                if (slash >= 0) throw invalid(text);
                slash = i;
            }
        }
        if (slash < 1 || slash > 8 || text.length() - slash - 1 < 1 || text.length() - slash - 1 > 8) {
            throw invalid(text);
        }
        return (hex(text, 0, slash) << 32) | hex(text, slash + 1, text.length());
    }

    private static long hex(CharSequence text, int from, int to) {
        long v = 0;
        for (int i = from; i < to; i++) {
            int d = Character.digit(text.charAt(i), 16);
            if (d < 0) throw invalid(text);
            v = (v << 4) | d;
        }
        return v;
    }

    private static IllegalArgumentException invalid(CharSequence text) {
        return new IllegalArgumentException("not an LSN (expected X/X in hex): '" + text + "'");
    }

    /**
     * Formats as the server does in 10 to 18: {@code %X/%X}.
     *
     * @param lsn the LSN
     * @return upper-case hex halves, unpadded, e.g. {@code 0/1A2B3C8}
     */
    public static String format(long lsn) {
        byte[] b = new byte[MAX_FORMATTED_LENGTH];
        return new String(b, 0, format(lsn, b, 0), java.nio.charset.StandardCharsets.US_ASCII);
    }

    /** The longest {@link #format} result: two 8-digit halves and the slash. */
    public static final int MAX_FORMATTED_LENGTH = 17;

    /**
     * Writes {@link #format(long)}'s text as ASCII into {@code dst}, for writers that build
     * output in a byte buffer without a String per LSN.
     *
     * @param lsn the LSN
     * @param dst where to write; needs {@link #MAX_FORMATTED_LENGTH} bytes from {@code at}
     * @param at  the first index written
     * @return the index after the last byte written
     */
    public static int format(long lsn, byte[] dst, int at) {
        int n = appendHex(dst, at, lsn >>> 32);
        dst[n++] = '/';
        return appendHex(dst, n, lsn & 0xFFFF_FFFFL);
    }

    private static final byte[] HEX = "0123456789ABCDEF".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    /** Upper-case hex of a 32-bit half without leading zeros (one digit for 0), as {@code %X} prints it. */
    private static int appendHex(byte[] b, int at, long half) {
        int digits = Math.max(1, (67 - Long.numberOfLeadingZeros(half)) >> 2);
        for (int shift = (digits - 1) * 4; shift >= 0; shift -= 4) b[at++] = HEX[(int) (half >>> shift) & 0xF];
        return at;
    }

    /**
     * Unsigned comparison: LSNs above 2^63 must still sort after smaller ones.
     *
     * @param a an LSN
     * @param b another LSN
     * @return negative, zero or positive as {@code a} is before, at or after {@code b}
     */
    public static int compare(long a, long b) {
        return Long.compareUnsigned(a, b);
    }

    /**
     * The later of two LSNs (unsigned).
     *
     * @param a an LSN
     * @param b another LSN
     * @return the larger one
     */
    public static long max(long a, long b) {
        return Long.compareUnsigned(a, b) >= 0 ? a : b;
    }

    /**
     * Whether {@code lsn} is a position at all.
     *
     * @param lsn the LSN
     * @return false for {@link #INVALID} (0/0)
     */
    public static boolean isValid(long lsn) {
        return lsn != INVALID;
    }
}
