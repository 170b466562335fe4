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

    static Map<String, Object> offset(long endLsn, int index) {
        return Map.of(LSN_COMMIT, endLsn, EVENT, index);
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
