package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.pgoutput.PgOutputMessageType;

/** Type 'Y'. */
public record Type(long xid, int oid, String namespace, String name) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.TYPE;
    }
}
