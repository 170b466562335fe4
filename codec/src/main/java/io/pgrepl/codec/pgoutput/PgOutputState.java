package io.pgrepl.codec.pgoutput;

/**
 * What a pgoutput stream must remember between messages: whether we are inside a
 * Stream Start … Stream Stop block (which decides whether R/Y/I/U/D/T/M carry an xid prefix),
 * and the relation and type caches. One per replication connection: the server's caches are
 * per walsender, so call {@link #reset()} after reconnecting.
 */
public final class PgOutputState {
    private final IntObjectMap<RelationInfo> relations = new IntObjectMap<>(64);
    private final IntObjectMap<TypeInfo> types = new IntObjectMap<>(16);
    private boolean inStreamBlock;
    private long streamXid;

    /**
     * True between a Stream Start and its Stream Stop.
     *
     * @return whether a stream block is open
     */
    public boolean inStreamBlock() {
        return inStreamBlock;
    }

    /**
     * The xid of the open stream block, or 0 (InvalidTransactionId) outside one.
     *
     * @return the xid, an unsigned 32-bit value
     */
    public long streamXid() {
        return streamXid;
    }

    void enterStream(long xid) {
        inStreamBlock = true;
        streamXid = xid;
    }

    void leaveStream() {
        inStreamBlock = false;
        streamXid = 0;
    }

    /**
     * The latest Relation message for {@code oid}, or null.
     *
     * @param oid the relation's {@code pg_class} OID
     * @return the relation, or null if no Relation message was seen for it
     */
    public RelationInfo relation(int oid) {
        return relations.get(oid);
    }

    /**
     * The latest Type message for {@code oid}; built-in types never get one.
     *
     * @param oid the type's {@code pg_type} OID
     * @return the type, or null
     */
    public TypeInfo type(int oid) {
        return types.get(oid);
    }

    /**
     * Number of relations in the cache.
     *
     * @return the relation count
     */
    public int relationCount() {
        return relations.size();
    }

    /**
     * Adds or replaces a relation, e.g. to seed the cache when resuming a decoded capture.
     *
     * @param relation the relation, keyed by its OID
     */
    public void putRelation(RelationInfo relation) {
        relations.put(relation.oid(), relation);
    }

    /**
     * Adds or replaces a type, e.g. to seed the cache when resuming a decoded capture.
     *
     * @param type the type, keyed by its OID
     */
    public void putType(TypeInfo type) {
        types.put(type.oid(), type);
    }

    /** Forgets everything: call when a new walsender session starts. */
    public void reset() {
        relations.clear();
        types.clear();
        leaveStream();
    }
}
