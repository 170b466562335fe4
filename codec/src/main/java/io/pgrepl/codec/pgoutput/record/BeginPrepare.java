package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/** Begin Prepare 'b'. */
public record BeginPrepare(long prepareLsn, long endLsn, long prepareTimeMicros, long xid, String gid) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.BEGIN_PREPARE;
    }
}
