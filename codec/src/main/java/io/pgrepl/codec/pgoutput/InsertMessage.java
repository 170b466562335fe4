package io.pgrepl.codec.pgoutput;

/** Insert 'I': [Int32 xid], Int32 relation OID, 'N', TupleData. */
public final class InsertMessage extends StreamableMessage {
    final TupleView newTuple = new TupleView();
    RelationInfo relation;

    @Override
    public byte type() {
        return PgOutputMessageType.INSERT;
    }

    /**
     * The OID of the table the row was inserted into.
     *
     * @return the relation OID
     */
    public int relationOid() {
        return relation.oid();
    }

    /**
     * The table, as the latest Relation message for its OID described it.
     *
     * @return schema, name and columns
     */
    public RelationInfo relation() {
        return relation;
    }

    /**
     * The inserted row.
     *
     * @return a view valid during the callback
     */
    public TupleView newTuple() {
        return newTuple;
    }
}
