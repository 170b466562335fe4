package io.pgrepl.codec.pgoutput;

/** Type 'Y': [Int32 xid], Int32 type OID, String namespace, String type name. */
public final class TypeMessage extends StreamableMessage {
    TypeInfo typeInfo;

    @Override
    public byte type() {
        return PgOutputMessageType.TYPE;
    }

    /**
     * The type as described by this message, already in the decoder's cache.
     *
     * @return the immutable type; safe to keep after the callback
     */
    public TypeInfo typeInfo() {
        return typeInfo;
    }

    /**
     * The type's OID.
     *
     * @return the {@code pg_type} OID
     */
    public int typeOid() {
        return typeInfo.oid();
    }
}
