package io.pgrepl.codec.pgoutput;

import java.time.Instant;

/** Commit Prepared 'K': Int8 flags, Int64 commit_lsn, Int64 end_lsn, Int64 commit time, Int32 xid, String gid. */
public final class CommitPreparedMessage extends TwoPhaseMessage {
    static final int FIXED = 30;

    @Override
    public byte type() {
        return PgOutputMessageType.COMMIT_PREPARED;
    }

    @Override
    int xidOffset() {
        return 26;
    }

    /**
     * The flags byte (0 in every server so far); exposed rather than rejected (see {@link CommitMessage}).
     *
     * @return the flags byte
     */
    public int flags() {
        return buf.getUnsignedByte(start + 1);
    }

    /**
     * The LSN of the COMMIT PREPARED record.
     *
     * @return the commit LSN
     */
    public long commitLsn() {
        return buf.getLong(start + 2);
    }

    /**
     * The end of the COMMIT PREPARED record: the position to confirm once the transaction is durable.
     *
     * @return the end LSN
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
