package io.pgrepl.codec.pgoutput;

/** Insert 'I': [Int32 xid], Int32 relation OID, 'N', TupleData. */
public final class InsertMessage extends StreamableMessage {
    final TupleView newTuple = new TupleView();
    RelationInfo relation;

    @Override
    public byte type() {
        return PgOutputMessageType.INSERT;
    }

    public int relationOid() {
        return relation.oid();
    }

    /** The latest Relation message for this OID. */
    public RelationInfo relation() {
        return relation;
    }

    public TupleView newTuple() {
        return newTuple;
    }
}
