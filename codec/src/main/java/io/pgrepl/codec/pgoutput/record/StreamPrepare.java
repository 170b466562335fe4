package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/** Stream Prepare 'p'. */
public record StreamPrepare(int flags, long prepareLsn, long endLsn, long prepareTimeMicros, long xid, String gid) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.STREAM_PREPARE;
    }
}
