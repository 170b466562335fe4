package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/** Stream Commit 'c'. */
public record StreamCommit(long xid, int flags, long commitLsn, long endLsn, long commitTimeMicros) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.STREAM_COMMIT;
    }
}
