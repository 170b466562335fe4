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

    public int flags() {
        return buf.getUnsignedByte(start + 1);
    }

    public long commitLsn() {
        return buf.getLong(start + 2);
    }

    /** End of the commit record: the position to confirm once the transaction is durable. */
    public long endLsn() {
        return buf.getLong(start + 10);
    }

    public long commitTimeMicros() {
        return buf.getLong(start + 18);
    }

    public Instant commitTime() {
        return instant(commitTimeMicros());
    }
}
