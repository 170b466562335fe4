package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/**
 * Rollback Prepared 'r'.
 *
 * @param flags              Int8 flags, 0 in every server so far
 * @param prepareEndLsn      end LSN of the PREPARE record
 * @param rollbackEndLsn     end LSN of the ROLLBACK PREPARED record, the position to confirm
 * @param prepareTimeMicros  prepare time, PostgreSQL microseconds since 2000-01-01 UTC
 * @param rollbackTimeMicros rollback time, PostgreSQL microseconds since 2000-01-01 UTC
 * @param xid                xid of the prepared transaction
 * @param gid                the global transaction identifier given to PREPARE TRANSACTION
 */
public record RollbackPrepared(int flags, long prepareEndLsn, long rollbackEndLsn, long prepareTimeMicros, long rollbackTimeMicros, long xid, String gid) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.ROLLBACK_PREPARED;
    }

    /** LSNs as the server prints them ({@code X/X}). */
    @Override
    public String toString() {
        return "RollbackPrepared[flags=" + flags + ", prepareEndLsn=" + Lsn.format(prepareEndLsn)
                + ", rollbackEndLsn=" + Lsn.format(rollbackEndLsn)
                + ", prepareTimeMicros=" + prepareTimeMicros
                + ", rollbackTimeMicros=" + rollbackTimeMicros + ", xid=" + Long.toUnsignedString(xid)
                + ", gid=" + gid + "]";
    }
}
