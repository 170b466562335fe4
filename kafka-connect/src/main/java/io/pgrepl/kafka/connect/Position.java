package io.pgrepl.kafka.connect;

import java.util.Map;

/**
 * A place in the change stream: a transaction's end LSN (what the slot is confirmed with) and the
 * place of a record inside that transaction. Stored as the source offset of every record; on
 * restart, everything at or before the stored position is skipped.
 *
 * <p>The place inside a transaction must not depend on the connector's configuration, or a
 * restart after a configuration change skips or repeats records of the boundary transaction. So
 * {@code index} is the ordinal of the row change (Insert, Update, Delete, Truncate) among the
 * transaction's row changes, counting every one the server sent whether or not it became a record
 * (table filters), and {@code part} is the record's fixed place among the records one change can
 * become: a delete is {@link #PART_MAIN} then its tombstone {@link #PART_TOMBSTONE}; a key change
 * adds the create as {@link #PART_CREATE}; a truncate's part is the relation's place in the message.
 * Logical messages are sent only when a messages topic is set, so they cannot take a row ordinal:
 * they take the ordinal of the row change before them (-1 before any) and parts from
 * {@link #PART_MESSAGES} on.
 *
 * <p>Offsets stored before this format (no {@code event_part}) are {@code legacy}: their index
 * counts the records emitted in the transaction, and they are still honoured that way (exact
 * unless the configuration changed in the same restart). The first record written after the
 * upgrade stores the new format.
 */
record Position(long endLsn, int index, int part, boolean legacy) {
    static final String LSN_COMMIT = "lsn_commit";
    static final String EVENT = "event";
    /** Present in offsets of the configuration-independent format (see the class comment). */
    static final String EVENT_PART = "event_part";
    /** Covers nothing: a new connector. */
    static final Position START = new Position(0, -1);

    static final int PART_MAIN = 0;
    static final int PART_TOMBSTONE = 1;
    static final int PART_CREATE = 2;
    /** Parts of the logical messages after one row change (truncates of more relations than this are not expected). */
    static final int PART_MESSAGES = 1 << 24;
    /** Covers every record of change {@code index}. */
    static final int ALL_PARTS = Integer.MAX_VALUE;

    /** Marks the offset of an initial snapshot's read; true while the copy is under way. */
    static final String SNAPSHOT = "snapshot";
    static final String SNAPSHOT_LSN = "snapshot_lsn";
    /** {@code snapshot} of an incremental snapshot's read or notification: not a transaction's record. */
    static final String INCREMENTAL = "incremental";
    /** The incremental snapshots' resumable state as of the record (absent when none runs). */
    static final String INCREMENTAL_STATE = "incremental_state";

    /** A position in the record-count format (legacy offsets; index -1 covers nothing of {@code endLsn} either way). */
    Position(long endLsn, int index) {
        this(endLsn, index, ALL_PARTS, true);
    }

    /** Record {@code part} of row change {@code index} of the transaction ending at {@code endLsn}. */
    static Position of(long endLsn, int index, int part) {
        return new Position(endLsn, index, part, false);
    }

    static Map<String, Object> offset(long endLsn, int index) {
        return Map.of(LSN_COMMIT, endLsn, EVENT, index);
    }

    /** The offset of record {@code part} of row change {@code index} (the configuration-independent format). */
    static Map<String, Object> offset(long endLsn, int index, int part) {
        return Map.of(LSN_COMMIT, endLsn, EVENT, index, EVENT_PART, part);
    }

    /** {@code offset} with the incremental snapshots' {@code state} added (none: {@code offset} itself). */
    static Map<String, Object> withState(Map<String, Object> offset, String state) {
        if (state == null || offset == null) return offset;
        Map<String, Object> m = new java.util.HashMap<>(offset);
        m.put(INCREMENTAL_STATE, state);
        return m;
    }

    /**
     * The offset of an incremental snapshot's read (or notification) handed over after everything
     * up to {@code at}: restarting from it resumes the stream after {@code at} and the snapshots at
     * {@code state}. Kafka acknowledges it outside any transaction ({@code snapshot=incremental}).
     */
    static Map<String, Object> incrementalRead(Position at, String state) {
        Map<String, Object> m = new java.util.HashMap<>(at.toOffset());
        m.put(SNAPSHOT, INCREMENTAL);
        if (state != null) m.put(INCREMENTAL_STATE, state);
        return m;
    }

    /** The incremental snapshots' state stored in {@code offset}, or null. */
    static String incrementalState(Map<String, Object> offset) {
        return offset != null && offset.get(INCREMENTAL_STATE) instanceof String s ? s : null;
    }

    /** This position as a source offset, in its own format. */
    Map<String, Object> toOffset() {
        return legacy ? offset(endLsn, index) : offset(endLsn, index, part);
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
        int index = e instanceof Number n ? n.intValue() : Integer.MAX_VALUE;
        if (offset.get(EVENT_PART) instanceof Number part) return of(lsn.longValue(), index, part.intValue());
        return new Position(lsn.longValue(), index);
    }

    /** Legacy rule: true when record {@code idx} (emitted-record count) of the transaction ending at {@code lsn} is covered. */
    boolean covers(long lsn, int idx) {
        int c = Long.compareUnsigned(lsn, endLsn);
        return c < 0 || (c == 0 && idx <= index);
    }

    /**
     * True when the record at ({@code change}, {@code p}) of the transaction ending at {@code lsn}
     * is at or before this position; {@code emitted} is its emitted-record count, which a legacy
     * position compares instead.
     */
    boolean covers(long lsn, int change, int p, int emitted) {
        int c = Long.compareUnsigned(lsn, endLsn);
        if (c != 0) return c < 0;
        if (legacy) return emitted <= index;
        return change < index || (change == index && p <= part);
    }

    /**
     * The later of two positions. Of a legacy and a new-format position in the same transaction
     * the new one wins: new-format positions are built only for records after the legacy one.
     */
    Position max(Position o) {
        int c = Long.compareUnsigned(endLsn, o.endLsn);
        if (c != 0) return c > 0 ? this : o;
        if (legacy != o.legacy) return legacy ? o : this;
        return index > o.index || (index == o.index && part >= o.part) ? this : o;
    }

    /** For logs: {@code 0/16B3748#3.1} (change 3, record 1 of it); legacy {@code 0/16B3748@3}. */
    String describe() {
        String lsn = io.pgrepl.codec.Lsn.format(endLsn);
        if (legacy) return lsn + "@" + index;
        return lsn + "#" + index + (part == ALL_PARTS ? "" : "." + part);
    }
}
