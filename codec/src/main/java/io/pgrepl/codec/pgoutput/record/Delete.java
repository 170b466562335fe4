package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/**
 * Delete 'D'; oldTupleKind is 'K' or 'O'.
 *
 * @param xid          xid of the transaction, an unsigned 32-bit value; 0 outside a stream block
 * @param relationOid  OID of the changed relation, as in its Relation message
 * @param oldTupleKind 'K' if oldTuple holds only the replica identity key, 'O' if the whole old row
 * @param oldTuple     the old key or row
 */
public record Delete(long xid, int relationOid, char oldTupleKind, Tuple oldTuple) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.DELETE;
    }
}
