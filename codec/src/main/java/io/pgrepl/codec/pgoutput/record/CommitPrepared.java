package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/**
 * Commit Prepared 'K'.
 *
 * @param flags            Int8 flags, 0 in every server so far
 * @param commitLsn        LSN of the COMMIT PREPARED record
 * @param endLsn           end LSN of the COMMIT PREPARED record, the position to confirm
 * @param commitTimeMicros commit time, PostgreSQL microseconds since 2000-01-01 UTC
 * @param xid              xid of the prepared transaction
 * @param gid              the global transaction identifier given to PREPARE TRANSACTION
 */
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
