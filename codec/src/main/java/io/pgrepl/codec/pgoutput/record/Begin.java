package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/** Begin 'B'. */
public record Begin(long finalLsn, long commitTimeMicros, long xid) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.BEGIN;
    }
}
