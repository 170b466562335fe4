package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/**
 * Insert 'I'.
 *
 * @param xid         xid of the transaction, an unsigned 32-bit value; 0 outside a stream block
 * @param relationOid OID of the changed relation, as in its Relation message
 * @param newTuple    the new row
 */
public record Insert(long xid, int relationOid, Tuple newTuple) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.INSERT;
    }
}
