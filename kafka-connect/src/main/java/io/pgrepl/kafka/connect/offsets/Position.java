package io.pgrepl.kafka.connect.offsets;

import java.util.HashMap;
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
 * <p>{@code commit} is the end LSN of the last transaction wholly at or before this position (0:
 * not known). It is what Debezium's connector reads back from the same offset ({@code lsn} and
 * {@code lsn_commit}, see {@link DebeziumOffsets}), so that connector, started on offsets pgrepl
 * wrote, resumes after that transaction: its skip has no finer unit that pgrepl could write, because
 * pgoutput's per-change WAL positions do not reach the records.
 *
 * <p>Offsets stored before this format (no {@code event_part}) are {@code legacy}: their index
 * counts the records emitted in the transaction, and they are still honoured that way (exact
 * unless the configuration changed in the same restart). The first record written after the
 * upgrade stores the new format. Offsets that named the transaction's end {@code lsn_commit}
 * (before Debezium's meaning of that key was written beside pgrepl's) are read as well.
 */
public record Position(long endLsn, int index, int part, boolean legacy, long commit) {
    /** pgrepl's own: the end LSN of the record's transaction. */
    public static final String TX_END = "pgrepl_lsn";
    /** Debezium's: the last transaction wholly processed (pgrepl writes {@link #commit} there). */
    public static final String LSN_COMMIT = DebeziumOffsets.LSN_COMMIT;
    public static final String EVENT = "event";
    /** Present in offsets of the configuration-independent format (see the class comment). */
    public static final String EVENT_PART = "event_part";
    /** Covers nothing: a new connector. */
    public static final Position START = new Position(0, -1);

    public static final int PART_MAIN = 0;
    public static final int PART_TOMBSTONE = 1;
    public static final int PART_CREATE = 2;
    /** Parts of the logical messages after one row change (truncates of more relations than this are not expected). */
    public static final int PART_MESSAGES = 1 << 24;
    /** Covers every record of change {@code index}. */
    public static final int ALL_PARTS = Integer.MAX_VALUE;

    /**
     * pgrepl's mark of a record outside any transaction: {@link #READ} for an initial snapshot's
     * read (the copy did not finish while it is the last stored), {@link #LAST} for the copy's last
     * read, {@link #INCREMENTAL} for an incremental snapshot's read or notification.
     */
    public static final String SNAPSHOT = "pgrepl_snapshot";
    public static final String READ = "read";
    public static final String LAST = "last";
    public static final String INCREMENTAL = "incremental";
    public static final String SNAPSHOT_LSN = "snapshot_lsn";
    /** The incremental snapshots' resumable state as of the record (absent when none runs). */
    public static final String INCREMENTAL_STATE = "incremental_state";
    /** Before Debezium's keys were written beside pgrepl's, the mark was {@code snapshot} (true, "last", "incremental"). */
    private static final String OLD_SNAPSHOT = DebeziumOffsets.SNAPSHOT;

    /** A position in the record-count format (legacy offsets; index -1 covers nothing of {@code endLsn} either way). */
    public Position(long endLsn, int index) {
        this(endLsn, index, ALL_PARTS, true, 0);
    }

    /** Record {@code part} of row change {@code index} of the transaction ending at {@code endLsn}. */
    public static Position of(long endLsn, int index, int part) {
        return new Position(endLsn, index, part, false, 0);
    }

    /** The same, with {@code commit} as the last transaction wholly covered. */
    public static Position of(long endLsn, int index, int part, long commit) {
        return new Position(endLsn, index, part, false, commit);
    }

    /**
     * Everything up to and including the transaction ending at {@code lsn} and nothing after: what
     * a Debezium offset, or a heartbeat at a position the stream has passed, covers.
     */
    public static Position through(long lsn) {
        return new Position(lsn, Integer.MAX_VALUE, ALL_PARTS, false, lsn);
    }

    /** This position with {@code commit} as the last transaction wholly covered. */
    public Position withCommit(long c) {
        return new Position(endLsn, index, part, legacy, c);
    }

    public static Map<String, Object> offset(long endLsn, int index) {
        return new Position(endLsn, index).toOffset();
    }

    /** The offset of record {@code part} of row change {@code index} (the configuration-independent format). */
    public static Map<String, Object> offset(long endLsn, int index, int part) {
        return of(endLsn, index, part).toOffset();
    }

    /**
     * The offset of a streamed record: pgrepl's position, and Debezium's keys for {@code commit}
     * (with the transaction's id and commit time, as Debezium stores them).
     */
    public static Map<String, Object> record(long endLsn, int index, int part, long commit, long xid, long commitMicros) {
        // Immutable maps: one per record, so the smallest and fastest to build.
        if (commit == 0) return Map.of(TX_END, endLsn, EVENT, index, EVENT_PART, part);
        return Map.of(TX_END, endLsn, EVENT, index, EVENT_PART, part, DebeziumOffsets.LSN, commit, LSN_COMMIT, commit,
                DebeziumOffsets.TX_ID, xid, DebeziumOffsets.TS_USEC, commitMicros);
    }

    /** {@code offset} with the incremental snapshots' {@code state} added (none: {@code offset} itself). */
    public static Map<String, Object> withState(Map<String, Object> offset, String state) {
        if (state == null || offset == null) return offset;
        Map<String, Object> m = new HashMap<>(offset);
        m.put(INCREMENTAL_STATE, state);
        DebeziumOffsets.putIncremental(m, state);
        return m;
    }

    /**
     * The offset of an incremental snapshot's read (or notification) handed over after everything
     * up to {@code at}: restarting from it resumes the stream after {@code at} and the snapshots at
     * {@code state}. Kafka acknowledges it outside any transaction ({@code pgrepl_snapshot=incremental}).
     */
    public static Map<String, Object> incrementalRead(Position at, String state) {
        Map<String, Object> m = new HashMap<>(at.toOffset());
        m.put(SNAPSHOT, INCREMENTAL);
        if (state != null) {
            m.put(INCREMENTAL_STATE, state);
            DebeziumOffsets.putIncremental(m, state);
        }
        return m;
    }

    /** The incremental snapshots' state stored in {@code offset}, or null. */
    public static String incrementalState(Map<String, Object> offset) {
        return offset != null && offset.get(INCREMENTAL_STATE) instanceof String s ? s : null;
    }

    /** This position as a source offset, in its own format, with Debezium's keys for {@link #commit}. */
    public Map<String, Object> toOffset() {
        Map<String, Object> m = new HashMap<>(8);
        m.put(TX_END, endLsn);
        m.put(EVENT, index);
        if (!legacy) m.put(EVENT_PART, part);
        DebeziumOffsets.putCommit(m, commit, 0, 0);
        return m;
    }

    /**
     * The offset of read {@code index} of a snapshot taken at {@code consistentPoint}. It has no
     * position: a task that restarts from it knows the copy did not finish and redoes it (and so
     * does Debezium's connector: for it the offset is of an initial snapshot not completed).
     */
    public static Map<String, Object> snapshotRead(long consistentPoint, int index) {
        Map<String, Object> m = new HashMap<>(8);
        m.put(SNAPSHOT, READ);
        m.put(SNAPSHOT_LSN, consistentPoint);
        m.put(EVENT, index);
        DebeziumOffsets.putSnapshotUnfinished(m);
        return m;
    }

    /**
     * The offset of a snapshot's last read: the copy is complete and streaming resumes after the
     * consistent point (index -1: nothing of a transaction ending there is covered).
     */
    public static Map<String, Object> snapshotDone(long consistentPoint) {
        Map<String, Object> m = new Position(consistentPoint, -1, ALL_PARTS, true, consistentPoint).toOffset();
        m.put(SNAPSHOT, LAST);
        return m;
    }

    /** True when Kafka acknowledges {@code offset}'s record outside any transaction (a snapshot's read). */
    public static boolean isRead(Map<String, ?> offset) {
        return offset != null && offset.containsKey(SNAPSHOT);
    }

    /** The end LSN of the transaction of the record that wrote {@code offset}; 0 without one (a copy's read). */
    public static long txEnd(Map<String, ?> offset) {
        return offset != null && offset.get(TX_END) instanceof Number n ? n.longValue() : 0;
    }

    /** True for pgrepl's offset of a snapshot read that was not the last: the copy was interrupted. */
    public static boolean snapshotInterrupted(Map<String, Object> offset) {
        if (offset == null) return false;
        if (READ.equals(offset.get(SNAPSHOT))) return true;
        // Written before Debezium's keys: snapshot=true and no position.
        return pgreplOld(offset) && Boolean.TRUE.equals(offset.get(OLD_SNAPSHOT)) && !(offset.get(LSN_COMMIT) instanceof Number);
    }

    /** True for an offset pgrepl wrote (either of its formats); false for Debezium's, or none. */
    public static boolean pgrepl(Map<String, ?> offset) {
        return offset != null && (offset.containsKey(TX_END) || offset.containsKey(SNAPSHOT) || pgreplOld(offset));
    }

    /** pgrepl's offsets from before the Debezium keys: Debezium never writes {@code event}. */
    private static boolean pgreplOld(Map<String, ?> offset) {
        return !offset.containsKey(TX_END) && offset.containsKey(EVENT);
    }

    /**
     * An interrupted copy's offset: where streaming starts once a copy completes, the first copy's
     * consistent point (every later copy's reads carry it on, so that point survives any number of
     * interruptions); 0 if the offset has none.
     */
    public static long snapshotStreamFrom(Map<String, Object> offset) {
        return offset != null && offset.get(SNAPSHOT_LSN) instanceof Number n ? n.longValue() : 0;
    }

    /**
     * From a stored offset, pgrepl's or Debezium's ({@link DebeziumOffsets#position}); {@link #START}
     * when there is none, or it holds no streaming position.
     */
    public static Position fromOffset(Map<String, Object> offset) {
        if (offset == null) return START;
        if (!pgrepl(offset)) return DebeziumOffsets.position(offset);
        Object end = offset.containsKey(TX_END) ? offset.get(TX_END) : offset.get(LSN_COMMIT);
        if (!(end instanceof Number lsn)) return START;
        long commit = offset.containsKey(TX_END) && offset.get(LSN_COMMIT) instanceof Number c ? c.longValue() : 0;
        Object e = offset.get(EVENT);
        int index = e instanceof Number n ? n.intValue() : Integer.MAX_VALUE;
        if (offset.get(EVENT_PART) instanceof Number part) return new Position(lsn.longValue(), index, part.intValue(), false, commit);
        return new Position(lsn.longValue(), index, ALL_PARTS, true, commit);
    }

    /** Legacy rule: true when record {@code idx} (emitted-record count) of the transaction ending at {@code lsn} is covered. */
    public boolean covers(long lsn, int idx) {
        int c = Long.compareUnsigned(lsn, endLsn);
        return c < 0 || (c == 0 && idx <= index);
    }

    /**
     * True when the record at ({@code change}, {@code p}) of the transaction ending at {@code lsn}
     * is at or before this position; {@code emitted} is its emitted-record count, which a legacy
     * position compares instead.
     */
    public boolean covers(long lsn, int change, int p, int emitted) {
        int c = Long.compareUnsigned(lsn, endLsn);
        if (c != 0) return c < 0;
        if (legacy) return emitted <= index;
        return change < index || (change == index && p <= part);
    }

    /**
     * The later of two positions. Of a legacy and a new-format position in the same transaction
     * the new one wins: new-format positions are built only for records after the legacy one.
     * The later one's {@code commit} goes with it, or the other's when it has none.
     */
    public Position max(Position o) {
        Position m = later(o);
        Position other = m == this ? o : this;
        if (m.commit == 0 && other.commit != 0) return m.withCommit(other.commit);
        return m;
    }

    private Position later(Position o) {
        int c = Long.compareUnsigned(endLsn, o.endLsn);
        if (c != 0) return c > 0 ? this : o;
        if (legacy != o.legacy) return legacy ? o : this;
        return index > o.index || (index == o.index && part >= o.part) ? this : o;
    }

    /** For logs: {@code 0/16B3748#3.1} (change 3, record 1 of it); legacy {@code 0/16B3748@3}. */
    public String describe() {
        String lsn = io.pgrepl.codec.Lsn.format(endLsn);
        if (legacy) return lsn + "@" + index;
        if (index == Integer.MAX_VALUE) return lsn + " (whole)";
        return lsn + "#" + index + (part == ALL_PARTS ? "" : "." + part);
    }
}
