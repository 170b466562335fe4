package io.pgrepl.codec.pgoutput;

/** Delete 'D': [Int32 xid], Int32 relation OID, 'K' or 'O', TupleData. */
public final class DeleteMessage extends StreamableMessage {
    final TupleView oldTuple = new TupleView();
    RelationInfo relation;
    byte oldKind;

    @Override
    public byte type() {
        return PgOutputMessageType.DELETE;
    }

    /**
     * The OID of the table the row was deleted from.
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
     * What identifies the deleted row.
     *
     * @return 'K' (key columns only) or 'O' (whole old row, REPLICA IDENTITY FULL)
     */
    public char oldTupleKind() {
        return (char) oldKind;
    }

    /**
     * The deleted row's key (non-key columns are {@link ColumnKind#ABSENT}) or whole old row.
     *
     * @return a view valid during the callback
     */
    public TupleView oldTuple() {
        return oldTuple;
    }
}
