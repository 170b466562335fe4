package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/**
 * Begin 'B'.
 *
 * @param finalLsn         LSN of the transaction's commit record
 * @param commitTimeMicros commit time, PostgreSQL microseconds since 2000-01-01 UTC
 * @param xid              xid of the transaction, an unsigned 32-bit value
 */
public record Begin(long finalLsn, long commitTimeMicros, long xid) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.BEGIN;
    }

    /** LSNs as the server prints them ({@code X/X}). */
    @Override
    public String toString() {
        return "Begin[finalLsn=" + Lsn.format(finalLsn) + ", commitTimeMicros=" + commitTimeMicros
                + ", xid=" + Long.toUnsignedString(xid) + "]";
    }
}
