package io.pgrepl.client.snapshot.incremental;

import java.util.Arrays;

/**
 * A transaction snapshot as {@code pg_current_snapshot()} (13+) or {@code txid_current_snapshot()}
 * prints it, {@code xmin:xmax:xip,...}, with 64-bit (epoch-extended) ids, and the visibility test
 * a chunk's rows need: was a transaction's effect in what the snapshot read?
 *
 * <p>The stream carries 32-bit xids. They are widened against {@code xmax}: every transaction the
 * stream can show us while a chunk is open is within 2^31 of it, so the signed 32-bit distance to
 * {@code xmax} places it in the right epoch.
 */
final class XidSnapshot {
    private final long xmin;
    private final long xmax;
    private final long[] xip;

    private XidSnapshot(long xmin, long xmax, long[] xip) {
        this.xmin = xmin;
        this.xmax = xmax;
        this.xip = xip;
    }

    /**
     * Parses the text form.
     *
     * @param text {@code xmin:xmax:xip,...}
     * @return the snapshot
     * @throws IllegalArgumentException if the text is not a snapshot
     */
    static XidSnapshot parse(String text) {
        String[] p = text == null ? new String[0] : text.split(":", -1);
        if (p.length != 3) throw new IllegalArgumentException("not a transaction snapshot: " + text);
        try {
            long xmin = Long.parseLong(p[0]);
            long xmax = Long.parseLong(p[1]);
            long[] xip = p[2].isEmpty() ? new long[0] : Arrays.stream(p[2].split(",")).mapToLong(Long::parseLong).toArray();
            Arrays.sort(xip);
            if (xmin > xmax) throw new IllegalArgumentException("xmin after xmax: " + text);
            return new XidSnapshot(xmin, xmax, xip);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not a transaction snapshot: " + text, e);
        }
    }

    long xmin() {
        return xmin;
    }

    /** The 32-bit xid of the stream placed in this snapshot's epoch. */
    long widen(long xid32) {
        int d = (int) ((xmax & 0xFFFFFFFFL) - (xid32 & 0xFFFFFFFFL));
        return xmax - d;
    }

    /**
     * Whether a committed transaction's changes are in what this snapshot read.
     *
     * @param xid32 the transaction's 32-bit xid, as the stream gives it
     * @return true if visible
     */
    boolean sees(long xid32) {
        long x = widen(xid32);
        if (x >= xmax) return false;
        if (x < xmin) return true;
        return Arrays.binarySearch(xip, x) < 0;
    }

    /** Whether the transaction had ended before this snapshot's oldest running one began (so every later snapshot sees it). */
    boolean precedesXmin(long xid32) {
        return widen(xid32) < xmin;
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder().append(xmin).append(':').append(xmax).append(':');
        for (int i = 0; i < xip.length; i++) b.append(i == 0 ? "" : ",").append(xip[i]);
        return b.toString();
    }
}
