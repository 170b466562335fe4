package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/**
 * Commit 'C'.
 *
 * @param flags            Int8 flags, 0 in every server so far
 * @param commitLsn        LSN of the commit record
 * @param endLsn           end LSN of the commit record, the position to confirm
 * @param commitTimeMicros commit time, PostgreSQL microseconds since 2000-01-01 UTC
 */
public record Commit(int flags, long commitLsn, long endLsn, long commitTimeMicros) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.COMMIT;
    }

    /** LSNs as the server prints them ({@code X/X}). */
    @Override
    public String toString() {
        return "Commit[flags=" + flags + ", commitLsn=" + Lsn.format(commitLsn)
                + ", endLsn=" + Lsn.format(endLsn) + ", commitTimeMicros=" + commitTimeMicros + "]";
    }
}
