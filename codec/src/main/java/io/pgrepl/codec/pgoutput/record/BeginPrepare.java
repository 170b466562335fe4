package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/**
 * Begin Prepare 'b'.
 *
 * @param prepareLsn        LSN of the PREPARE record
 * @param endLsn            end LSN of the PREPARE record
 * @param prepareTimeMicros prepare time, PostgreSQL microseconds since 2000-01-01 UTC
 * @param xid               xid of the prepared transaction
 * @param gid               the global transaction identifier given to PREPARE TRANSACTION
 */
public record BeginPrepare(long prepareLsn, long endLsn, long prepareTimeMicros, long xid, String gid) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.BEGIN_PREPARE;
    }

    /** LSNs as the server prints them ({@code X/X}). */
    @Override
    public String toString() {
        return "BeginPrepare[prepareLsn=" + Lsn.format(prepareLsn) + ", endLsn=" + Lsn.format(endLsn)
                + ", prepareTimeMicros=" + prepareTimeMicros + ", xid=" + Long.toUnsignedString(xid)
                + ", gid=" + gid + "]";
    }
}
