package io.pgrepl.codec.pgoutput;

import java.time.Instant;

/**
 * Prepare 'P' and Stream Prepare 'p' (same layout): Int8 flags, Int64 prepare_lsn,
 * Int64 end_lsn, Int64 prepare time, Int32 xid, String gid.
 */
public final class PrepareMessage extends TwoPhaseMessage {
    static final int FIXED = 30;
    byte type;

    @Override
    public byte type() {
        return type;
    }

    /**
     * True for Stream Prepare 'p' (the transaction's changes came in stream blocks).
     *
     * @return true for {@code 'p'}, false for {@code 'P'}
     */
    public boolean streamed() {
        return type == PgOutputMessageType.STREAM_PREPARE;
    }

    @Override
    int xidOffset() {
        return 26;
    }

    /**
     * 0 so far; exposed rather than rejected (see {@link CommitMessage}).
     *
     * @return the flags byte
     */
    public int flags() {
        return buf.getUnsignedByte(start + 1);
    }

    /**
     * The LSN of the prepare record.
     *
     * @return the prepare LSN
     */
    public long prepareLsn() {
        return buf.getLong(start + 2);
    }

    /**
     * The end of the PREPARE record: the position to confirm once the prepared transaction is durable.
     *
     * @return the end LSN
     */
    public long endLsn() {
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
     * The prepare time.
     *
     * @return the prepare time as an Instant
     */
    public Instant prepareTime() {
        return instant(prepareTimeMicros());
    }
}
