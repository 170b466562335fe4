package io.pgrepl.kafka.connect;

import java.util.Map;

/**
 * A place in the change stream: a transaction's end LSN (what the slot is confirmed with) and the
 * index of a record among that transaction's records. Stored as the source offset of every record;
 * on restart, everything at or before the stored position is skipped.
 */
record Position(long endLsn, int index) {
    static final String LSN_COMMIT = "lsn_commit";
    static final String EVENT = "event";
    /** Covers nothing: a new connector. */
    static final Position START = new Position(0, -1);

    /** Marks the offset of an initial snapshot's read; true while the copy is under way. */
    static final String SNAPSHOT = "snapshot";
    static final String SNAPSHOT_LSN = "snapshot_lsn";

    static Map<String, Object> offset(long endLsn, int index) {
        return Map.of(LSN_COMMIT, endLsn, EVENT, index);
    }

    /**
     * The offset of read {@code index} of a snapshot taken at {@code consistentPoint}. It has no
     * lsn_commit: a task that restarts from it knows the copy did not finish and redoes it.
     */
    static Map<String, Object> snapshotRead(long consistentPoint, int index) {
        return Map.of(SNAPSHOT, true, SNAPSHOT_LSN, consistentPoint, EVENT, index);
    }

    /**
     * The offset of a snapshot's last read: the copy is complete and streaming resumes after the
     * consistent point (index -1: nothing of a transaction ending there is covered).
     */
    static Map<String, Object> snapshotDone(long consistentPoint) {
        return Map.of(LSN_COMMIT, consistentPoint, EVENT, -1, SNAPSHOT, "last");
    }

    /** True for the offset of a snapshot read that was not the last: the copy was interrupted. */
    static boolean snapshotInterrupted(Map<String, Object> offset) {
        return offset != null && Boolean.TRUE.equals(offset.get(SNAPSHOT)) && !(offset.get(LSN_COMMIT) instanceof Number);
    }

    /**
     * An interrupted copy's offset: where streaming starts once a copy completes, the first copy's
     * consistent point (every later copy's reads carry it on, so that point survives any number of
     * interruptions); 0 if the offset has none.
     */
    static long snapshotStreamFrom(Map<String, Object> offset) {
        return offset != null && offset.get(SNAPSHOT_LSN) instanceof Number n ? n.longValue() : 0;
    }

    /** From a stored offset; {@link #START} when there is none. */
    static Position fromOffset(Map<String, Object> offset) {
        if (offset == null || !(offset.get(LSN_COMMIT) instanceof Number lsn)) return START;
        Object e = offset.get(EVENT);
        return new Position(lsn.longValue(), e instanceof Number n ? n.intValue() : Integer.MAX_VALUE);
    }

    /** True when record {@code index} of the transaction ending at {@code lsn} is at or before this position. */
    boolean covers(long lsn, int idx) {
        int c = Long.compareUnsigned(lsn, endLsn);
        return c < 0 || (c == 0 && idx <= index);
    }

    Position max(Position o) {
        int c = Long.compareUnsigned(endLsn, o.endLsn);
        return c > 0 || (c == 0 && index >= o.index) ? this : o;
    }
}
