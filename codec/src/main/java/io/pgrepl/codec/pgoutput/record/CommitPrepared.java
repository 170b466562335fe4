package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/** Commit Prepared 'K'. */
public record CommitPrepared(int flags, long commitLsn, long endLsn, long commitTimeMicros, long xid, String gid) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.COMMIT_PREPARED;
    }

    /** LSNs as the server prints them ({@code X/X}). */
    @Override
    public String toString() {
        return "CommitPrepared[flags=" + flags + ", commitLsn=" + Lsn.format(commitLsn)
                + ", endLsn=" + Lsn.format(endLsn) + ", commitTimeMicros=" + commitTimeMicros
                + ", xid=" + Long.toUnsignedString(xid) + ", gid=" + gid + "]";
    }
}
