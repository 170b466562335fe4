package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/** Commit 'C'. */
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
