package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/** Prepare 'P'. */
public record Prepare(int flags, long prepareLsn, long endLsn, long prepareTimeMicros, long xid, String gid) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.PREPARE;
    }

    /** LSNs as the server prints them ({@code X/X}). */
    @Override
    public String toString() {
        return "Prepare[flags=" + flags + ", prepareLsn=" + Lsn.format(prepareLsn)
                + ", endLsn=" + Lsn.format(endLsn) + ", prepareTimeMicros=" + prepareTimeMicros
                + ", xid=" + Long.toUnsignedString(xid) + ", gid=" + gid + "]";
    }
}
