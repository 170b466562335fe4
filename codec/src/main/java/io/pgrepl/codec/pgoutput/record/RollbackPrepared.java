package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/** Rollback Prepared 'r'. */
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
