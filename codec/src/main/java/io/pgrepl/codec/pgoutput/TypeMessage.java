package io.pgrepl.codec.pgoutput;

/** Type 'Y': [Int32 xid], Int32 type OID, String namespace, String type name. */
public final class TypeMessage extends StreamableMessage {
    TypeInfo typeInfo;

    @Override
    public byte type() {
        return PgOutputMessageType.TYPE;
    }

    public TypeInfo typeInfo() {
        return typeInfo;
    }

    public int typeOid() {
        return typeInfo.oid();
    }
}
