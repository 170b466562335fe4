package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.pgoutput.PgOutputMessageType;
import io.pgrepl.codec.pgoutput.ColumnInfo;
import java.util.List;
/**
 * Relation 'R'; namespace "" means pg_catalog.
 *
 * @param xid             xid of the transaction, 0 outside a stream block
 * @param oid             the relation's {@code pg_class} OID
 * @param namespace       the schema name as sent; empty means pg_catalog
 * @param name            the relation's name
 * @param replicaIdentity REPLICA IDENTITY setting, {@code relreplident}: 'd' default, 'n' nothing, 'f' full, 'i' index
 * @param columns         the columns, in the relation's order
 */
public record Relation(long xid, int oid, String namespace, String name, char replicaIdentity, List<ColumnInfo> columns) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.RELATION;
    }
}
