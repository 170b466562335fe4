package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/** Commit Prepared 'K'. */
public record CommitPrepared(int flags, long commitLsn, long endLsn, long commitTimeMicros, long xid, String gid) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.COMMIT_PREPARED;
    }
}
