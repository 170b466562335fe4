package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/** Update 'U'; oldTupleKind is 'K', 'O' or 0 (then oldTuple is null). */
public record Update(long xid, int relationOid, char oldTupleKind, Tuple oldTuple, Tuple newTuple) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.UPDATE;
    }
}
