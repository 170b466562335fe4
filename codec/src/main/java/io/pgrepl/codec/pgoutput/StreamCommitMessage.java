package io.pgrepl.codec.pgoutput;

import java.time.Instant;

/** Stream Commit 'c': Int32 xid, Int8 flags, Int64 commit_lsn, Int64 end_lsn, Int64 commit time. */
public final class StreamCommitMessage extends PgOutputMessage {
    static final int LENGTH = 30;

    @Override
    public byte type() {
        return PgOutputMessageType.STREAM_COMMIT;
    }

    /**
     * The top-level xid of the streamed transaction.
     *
     * @return the xid, an unsigned 32-bit value
     */
    public long xid() {
        return buf.getUnsignedInt(start + 1);
    }

    /**
     * 0 so far; exposed rather than rejected (see {@link CommitMessage}).
     *
     * @return the flags byte
     */
    public int flags() {
        return buf.getUnsignedByte(start + 5);
    }

    /**
     * The LSN of the commit record.
     *
     * @return the commit LSN
     */
    public long commitLsn() {
        return buf.getLong(start + 6);
    }

    /**
     * The end of the commit record: the position to confirm once the transaction is durable.
     *
     * @return the end LSN
     */
    public long endLsn() {
        return buf.getLong(start + 14);
    }

    /**
     * The commit time in PostgreSQL microseconds since 2000-01-01 UTC.
     *
     * @return the commit time
     */
    public long commitTimeMicros() {
        return buf.getLong(start + 22);
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
