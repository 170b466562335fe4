package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.pgoutput.PgOutputMessageType;
import io.pgrepl.codec.pgoutput.ColumnInfo;
import java.util.List;
/** Relation 'R'; namespace "" means pg_catalog. */
public record Relation(long xid, int oid, String namespace, String name, char replicaIdentity, List<ColumnInfo> columns) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.RELATION;
    }
}
