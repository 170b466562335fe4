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

    /** True for Stream Prepare 'p' (the transaction's changes came in stream blocks). */
    public boolean streamed() {
        return type == PgOutputMessageType.STREAM_PREPARE;
    }

    @Override
    int xidOffset() {
        return 26;
    }

    /** 0 so far; exposed rather than rejected (see {@link CommitMessage}). */
    public int flags() {
        return buf.getUnsignedByte(start + 1);
    }

    public long prepareLsn() {
        return buf.getLong(start + 2);
    }

    public long endLsn() {
        return buf.getLong(start + 10);
    }

    public long prepareTimeMicros() {
        return buf.getLong(start + 18);
    }

    public Instant prepareTime() {
        return instant(prepareTimeMicros());
    }
}
