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

    public int flags() {
        return buf.getUnsignedByte(start + 1);
    }

    public long prepareEndLsn() {
        return buf.getLong(start + 2);
    }

    public long rollbackEndLsn() {
        return buf.getLong(start + 10);
    }

    public long prepareTimeMicros() {
        return buf.getLong(start + 18);
    }

    public long rollbackTimeMicros() {
        return buf.getLong(start + 26);
    }

    public Instant prepareTime() {
        return instant(prepareTimeMicros());
    }

    public Instant rollbackTime() {
        return instant(rollbackTimeMicros());
    }
}
