package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/** Stream Commit 'c'. */
public record StreamCommit(long xid, int flags, long commitLsn, long endLsn, long commitTimeMicros) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.STREAM_COMMIT;
    }

    /** LSNs as the server prints them ({@code X/X}). */
    @Override
    public String toString() {
        return "StreamCommit[xid=" + Long.toUnsignedString(xid) + ", flags=" + flags
                + ", commitLsn=" + Lsn.format(commitLsn) + ", endLsn=" + Lsn.format(endLsn)
                + ", commitTimeMicros=" + commitTimeMicros + "]";
    }
}
