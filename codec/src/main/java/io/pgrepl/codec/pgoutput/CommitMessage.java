package io.pgrepl.codec.pgoutput;

import java.time.Instant;

/**
 * Commit 'C': Int8 flags, Int64 commit_lsn, Int64 end_lsn, Int64 commit time.
 * Flags are 0 in every server so far; non-zero flags are accepted and exposed, not rejected, so a
 * future server minor cannot stop a stream (the built-in subscriber errors instead).
 */
public final class CommitMessage extends PgOutputMessage {
    static final int LENGTH = 26;

    @Override
    public byte type() {
        return PgOutputMessageType.COMMIT;
    }

    /**
     * The commit flags (0 in every server so far).
     *
     * @return the flags byte
     */
    public int flags() {
        return buf.getUnsignedByte(start + 1);
    }

    /**
     * The LSN of the commit record.
     *
     * @return the commit LSN
     */
    public long commitLsn() {
        return buf.getLong(start + 2);
    }

    /**
     * The end of the commit record: the position to confirm once the transaction is durable.
     *
     * @return the end LSN, to pass to {@code acknowledge}
     */
    public long endLsn() {
        return buf.getLong(start + 10);
    }

    /**
     * The commit time in PostgreSQL microseconds since 2000-01-01 UTC.
     *
     * @return the commit time
     */
    public long commitTimeMicros() {
        return buf.getLong(start + 18);
    }

    /**
     * The commit time.
     *
     * @return the commit time as an Instant
     */
    public Instant commitTime() {
        return instant(commitTimeMicros());
    }
}
