package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/**
 * Origin 'O'.
 *
 * @param originLsn commit LSN of the transaction on the origin server
 * @param name      the replication origin's name
 */
public record Origin(long originLsn, String name) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.ORIGIN;
    }

    /** LSNs as the server prints them ({@code X/X}). */
    @Override
    public String toString() {
        return "Origin[originLsn=" + Lsn.format(originLsn) + ", name=" + name + "]";
    }
}
