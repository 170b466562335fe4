package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/**
 * Stream Abort 'A'; abortLsn/abortTimeMicros are 0 without abort info.
 *
 * @param xid             top-level xid of the streamed transaction
 * @param subXid          the aborted (sub)transaction's xid; equals xid when the whole transaction aborted
 * @param hasAbortInfo    whether the message carried abort LSN and time (streaming=parallel, protocol 4)
 * @param abortLsn        LSN of the abort record, or 0
 * @param abortTimeMicros abort time, PostgreSQL microseconds since 2000-01-01 UTC, or 0
 */
public record StreamAbort(long xid, long subXid, boolean hasAbortInfo, long abortLsn, long abortTimeMicros) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.STREAM_ABORT;
    }

    /** LSNs as the server prints them ({@code X/X}). */
    @Override
    public String toString() {
        return "StreamAbort[xid=" + Long.toUnsignedString(xid) + ", subXid=" + Long.toUnsignedString(subXid)
                + ", hasAbortInfo=" + hasAbortInfo + ", abortLsn=" + Lsn.format(abortLsn)
                + ", abortTimeMicros=" + abortTimeMicros + "]";
    }
}
