package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/** Delete 'D'; oldTupleKind is 'K' or 'O'. */
public record Delete(long xid, int relationOid, char oldTupleKind, Tuple oldTuple) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.DELETE;
    }
}
