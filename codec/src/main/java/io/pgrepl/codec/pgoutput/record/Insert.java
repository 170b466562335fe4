package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/** Insert 'I'. */
public record Insert(long xid, int relationOid, Tuple newTuple) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.INSERT;
    }
}
