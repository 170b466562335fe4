package io.pgrepl.client.snapshot.incremental;

import io.pgrepl.codec.Lsn;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;

/**
 * The keys of one table that committed stream transactions changed while the table is being
 * snapshotted: per key, the transactions' xids and the latest commit LSN. A chunk row whose key is
 * here is dropped when a change came from a transaction the chunk's snapshot did not see, or
 * committed after the chunk's low watermark (see {@link IncrementalSnapshots} for why). A TRUNCATE
 * of the table touches every key at once, and so does a transaction some of whose changes came
 * before the keys were tracked. Event loop only.
 */
final class TouchLog {
    /** One key's record; xids kept in a tiny array since a key is rarely changed by many open transactions. */
    private static final class Touch {
        long commitLsn;
        long[] xids = new long[2];
        int n;

        void add(long xid, long lsn) {
            commitLsn = Lsn.max(commitLsn, lsn);
            for (int i = 0; i < n; i++) if (xids[i] == xid) return;
            if (n == xids.length) xids = java.util.Arrays.copyOf(xids, n * 2);
            xids[n++] = xid;
        }

        boolean conflicts(long lowLsn, XidSnapshot s) {
            if (Long.compareUnsigned(commitLsn, lowLsn) > 0) return true;
            for (int i = 0; i < n; i++) if (!s.sees(xids[i])) return true;
            return false;
        }

        /** Drops the xids every later snapshot sees; true when nothing is left to matter. */
        boolean prune(XidSnapshot floor, long lsnFloor) {
            int k = 0;
            for (int i = 0; i < n; i++) if (!floor.precedesXmin(xids[i])) xids[k++] = xids[i];
            n = k;
            return n == 0 && Long.compareUnsigned(commitLsn, lsnFloor) <= 0;
        }
    }

    private final Map<String, Touch> keys = new HashMap<>();
    private Touch truncated;

    void touch(String key, long xid, long commitLsn) {
        keys.computeIfAbsent(key, k -> new Touch()).add(xid, commitLsn);
    }

    void truncate(long xid, long commitLsn) {
        if (truncated == null) truncated = new Touch();
        truncated.add(xid, commitLsn);
    }

    /** Whether a TRUNCATE of the table makes the whole chunk stale. */
    boolean truncatedSince(long lowLsn, XidSnapshot s) {
        return truncated != null && truncated.conflicts(lowLsn, s);
    }

    boolean conflicts(String key, long lowLsn, XidSnapshot s) {
        Touch t = keys.get(key);
        return t != null && t.conflicts(lowLsn, s);
    }

    /**
     * Forgets what no chunk still open or to come can be affected by: transactions that precede
     * the {@code floor} snapshot's xmin (taken before every open chunk's snapshot) and committed
     * at or before {@code lsnFloor} (before every open chunk's low watermark).
     */
    void prune(XidSnapshot floor, long lsnFloor) {
        for (Iterator<Touch> it = keys.values().iterator(); it.hasNext(); ) {
            if (it.next().prune(floor, lsnFloor)) it.remove();
        }
        if (truncated != null && truncated.prune(floor, lsnFloor)) truncated = null;
    }

    boolean isEmpty() {
        return keys.isEmpty() && truncated == null;
    }

    int size() {
        return keys.size();
    }
}
