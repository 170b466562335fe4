package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/**
 * Type 'Y'.
 *
 * @param xid       xid of the transaction, 0 outside a stream block
 * @param oid       the type's {@code pg_type} OID
 * @param namespace the schema name as sent; empty means pg_catalog
 * @param name      the type's name
 */
public record Type(long xid, int oid, String namespace, String name) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.TYPE;
    }
}
