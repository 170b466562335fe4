package io.pgrepl.codec.pgoutput;

import java.time.Instant;

/**
 * Rollback Prepared 'r': Int8 flags, Int64 prepare end_lsn, Int64 rollback end_lsn,
 * Int64 prepare time, Int64 rollback time, Int32 xid, String gid.
 */
public final class RollbackPreparedMessage extends TwoPhaseMessage {
    static final int FIXED = 38;

    @Override
    public byte type() {
        return PgOutputMessageType.ROLLBACK_PREPARED;
    }

    @Override
    int xidOffset() {
        return 34;
    }

    /**
     * The flags byte (0 in every server so far); exposed rather than rejected (see {@link CommitMessage}).
     *
     * @return the flags byte
     */
    public int flags() {
        return buf.getUnsignedByte(start + 1);
    }

    /**
     * The end LSN of the prepared transaction's PREPARE record.
     *
     * @return the prepare end LSN
     */
    public long prepareEndLsn() {
        return buf.getLong(start + 2);
    }

    /**
     * The end of the ROLLBACK PREPARED record: the position to confirm.
     *
     * @return the rollback end LSN
     */
    public long rollbackEndLsn() {
        return buf.getLong(start + 10);
    }

    /**
     * The prepare time in PostgreSQL microseconds since 2000-01-01 UTC.
     *
     * @return the prepare time
     */
    public long prepareTimeMicros() {
        return buf.getLong(start + 18);
    }

    /**
     * The rollback time in PostgreSQL microseconds since 2000-01-01 UTC.
     *
     * @return the rollback time
     */
    public long rollbackTimeMicros() {
        return buf.getLong(start + 26);
    }

    /**
     * The prepare time.
     *
     * @return the prepare time as an Instant
     */
    public Instant prepareTime() {
        return instant(prepareTimeMicros());
    }

    /**
     * The rollback time.
     *
     * @return the rollback time as an Instant
     */
    public Instant rollbackTime() {
        return instant(rollbackTimeMicros());
    }
}
