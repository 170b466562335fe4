package io.pgrepl.codec.pgoutput;

/**
 * Relation 'R': [Int32 xid], Int32 OID, String namespace, String name, Int8 replica identity,
 * Int16 ncols, per column Int8 flags, String name, Int32 type OID, Int32 typmod.
 * Relations are rare, so the decoder parses it eagerly into an immutable {@link RelationInfo}
 * (already stored in the cache when the handler runs).
 */
public final class RelationMessage extends StreamableMessage {
    RelationInfo relation;

    @Override
    public byte type() {
        return PgOutputMessageType.RELATION;
    }

    /**
     * The relation as described by this message, already in the decoder's cache.
     *
     * @return the immutable relation; safe to keep after the callback
     */
    public RelationInfo relation() {
        return relation;
    }

    /**
     * The relation's OID.
     *
     * @return the {@code pg_class} OID
     */
    public int relationOid() {
        return relation.oid();
    }
}
