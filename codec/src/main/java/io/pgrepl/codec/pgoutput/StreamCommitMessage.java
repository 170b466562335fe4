package io.pgrepl.codec.pgoutput;

import java.time.Instant;

/** Stream Commit 'c': Int32 xid, Int8 flags, Int64 commit_lsn, Int64 end_lsn, Int64 commit time. */
public final class StreamCommitMessage extends PgOutputMessage {
    static final int LENGTH = 30;

    @Override
    public byte type() {
        return PgOutputMessageType.STREAM_COMMIT;
    }

    public long xid() {
        return buf.getUnsignedInt(start + 1);
    }

    /** 0 so far; exposed rather than rejected (see {@link CommitMessage}). */
    public int flags() {
        return buf.getUnsignedByte(start + 5);
    }

    public long commitLsn() {
        return buf.getLong(start + 6);
    }

    public long endLsn() {
        return buf.getLong(start + 14);
    }

    public long commitTimeMicros() {
        return buf.getLong(start + 22);
    }

    public Instant commitTime() {
        return instant(commitTimeMicros());
    }
}
