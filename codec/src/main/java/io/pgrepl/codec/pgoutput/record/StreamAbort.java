package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/** Stream Abort 'A'; abortLsn/abortTimeMicros are 0 without abort info. */
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
