package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/**
 * Update 'U'; oldTupleKind is 'K', 'O' or 0 (then oldTuple is null).
 *
 * @param xid          xid of the transaction, an unsigned 32-bit value; 0 outside a stream block
 * @param relationOid  OID of the changed relation, as in its Relation message
 * @param oldTupleKind 'K' if oldTuple holds only the replica identity key, 'O' if the whole old row, 0 if none was sent
 * @param oldTuple     the old key or row, or null when oldTupleKind is 0
 * @param newTuple     the new row
 */
public record Update(long xid, int relationOid, char oldTupleKind, Tuple oldTuple, Tuple newTuple) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.UPDATE;
    }
}
