package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/** Prepare 'P'. */
public record Prepare(int flags, long prepareLsn, long endLsn, long prepareTimeMicros, long xid, String gid) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.PREPARE;
    }
}
