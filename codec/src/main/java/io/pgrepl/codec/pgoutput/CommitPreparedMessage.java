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

    public int flags() {
        return buf.getUnsignedByte(start + 1);
    }

    public long commitLsn() {
        return buf.getLong(start + 2);
    }

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
