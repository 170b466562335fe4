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

    /**
     * Top-level xid.
     *
     * @return the xid, an unsigned 32-bit value
     */
    public long xid() {
        return buf.getUnsignedInt(start + 1);
    }

    /**
     * The aborted (sub)transaction; equals {@link #xid()} when the whole transaction aborted.
     *
     * @return the xid, an unsigned 32-bit value
     */
    public long subXid() {
        return buf.getUnsignedInt(start + 5);
    }

    /**
     * Whether only a subtransaction aborted: its changes are dropped, the rest of the transaction continues.
     *
     * @return true when {@link #subXid()} differs from {@link #xid()}
     */
    public boolean isSubtransactionAbort() {
        return xid() != subXid();
    }

    /**
     * Whether the message carries the abort LSN and time (the 25-byte form, streaming=parallel).
     *
     * @return true for the long form
     */
    public boolean hasAbortInfo() {
        return hasAbortInfo;
    }

    /**
     * Abort record LSN, or 0 without {@link #hasAbortInfo()}.
     *
     * @return the LSN
     */
    public long abortLsn() {
        return hasAbortInfo ? buf.getLong(start + 9) : 0L;
    }

    /**
     * Abort time in PostgreSQL microseconds since 2000-01-01 UTC, or 0 without {@link #hasAbortInfo()}.
     *
     * @return the abort time
     */
    public long abortTimeMicros() {
        return hasAbortInfo ? buf.getLong(start + 17) : 0L;
    }

    /**
     * Abort time, or null without {@link #hasAbortInfo()}.
     *
     * @return the abort time as an Instant
     */
    public Instant abortTime() {
        return hasAbortInfo ? instant(abortTimeMicros()) : null;
    }
}
