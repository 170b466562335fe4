package io.pgrepl.codec.pgoutput;

import java.time.Instant;

/**
 * Begin Prepare 'b': Int64 prepare_lsn, Int64 end_lsn, Int64 prepare time, Int32 xid, String gid.
 * Unlike the other two-phase messages it has no flags byte.
 */
public final class BeginPrepareMessage extends TwoPhaseMessage {
    static final int FIXED = 29;

    @Override
    public byte type() {
        return PgOutputMessageType.BEGIN_PREPARE;
    }

    @Override
    int xidOffset() {
        return 25;
    }

    /**
     * The LSN of the prepare record.
     *
     * @return the prepare LSN
     */
    public long prepareLsn() {
        return buf.getLong(start + 1);
    }

    /**
     * The end of the prepared transaction's PREPARE record.
     *
     * @return the end LSN
     */
    public long endLsn() {
        return buf.getLong(start + 9);
    }

    /**
     * The prepare time in PostgreSQL microseconds since 2000-01-01 UTC.
     *
     * @return the prepare time
     */
    public long prepareTimeMicros() {
        return buf.getLong(start + 17);
    }

    /**
     * The prepare time.
     *
     * @return the prepare time as an Instant
     */
    public Instant prepareTime() {
        return instant(prepareTimeMicros());
    }
}
