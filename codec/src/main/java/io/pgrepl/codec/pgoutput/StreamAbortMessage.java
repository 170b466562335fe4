package io.pgrepl.codec.pgoutput;

import java.time.Instant;

/**
 * Stream Abort 'A': Int32 xid, Int32 subxid, then Int64 abort LSN and Int64 abort time only with
 * streaming=parallel (PG16+, proto 4). The option is not visible in the message, so the decoder
 * tells the two forms apart by length: 9 bytes without, 25 with.
 */
public final class StreamAbortMessage extends PgOutputMessage {
    static final int SHORT_LENGTH = 9;
    static final int LONG_LENGTH = 25;

    boolean hasAbortInfo;

    @Override
    public byte type() {
        return PgOutputMessageType.STREAM_ABORT;
    }

    /** Top-level xid. */
    public long xid() {
        return buf.getUnsignedInt(start + 1);
    }

    /** The aborted (sub)transaction; equals {@link #xid()} when the whole transaction aborted. */
    public long subXid() {
        return buf.getUnsignedInt(start + 5);
    }

    public boolean isSubtransactionAbort() {
        return xid() != subXid();
    }

    public boolean hasAbortInfo() {
        return hasAbortInfo;
    }

    /** Abort record LSN, or 0 without {@link #hasAbortInfo()}. */
    public long abortLsn() {
        return hasAbortInfo ? buf.getLong(start + 9) : 0L;
    }

    /** Abort time in PostgreSQL microseconds, or 0 without {@link #hasAbortInfo()}. */
    public long abortTimeMicros() {
        return hasAbortInfo ? buf.getLong(start + 17) : 0L;
    }

    /** Abort time, or null without {@link #hasAbortInfo()}. */
    public Instant abortTime() {
        return hasAbortInfo ? instant(abortTimeMicros()) : null;
    }
}
