package io.pgrepl.codec.pgoutput;

/**
 * Update 'U': [Int32 xid], Int32 relation OID, optional ('K' key | 'O' old row) TupleData,
 * 'N', TupleData. Without an old part the key did not change (replica identity default/index).
 */
public final class UpdateMessage extends StreamableMessage {
    final TupleView oldTuple = new TupleView();
    final TupleView newTuple = new TupleView();
    RelationInfo relation;
    byte oldKind;

    @Override
    public byte type() {
        return PgOutputMessageType.UPDATE;
    }

    /**
     * The OID of the updated table.
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
     * What the old part holds.
     *
     * @return 'K' (old key only), 'O' (whole old row, REPLICA IDENTITY FULL), or 0 when absent
     */
    public char oldTupleKind() {
        return (char) oldKind;
    }

    /**
     * Whether an old key or row was sent (the key changed, or REPLICA IDENTITY FULL).
     *
     * @return true with an old part
     */
    public boolean hasOldTuple() {
        return oldKind != 0;
    }

    /**
     * The old key or row; only meaningful when {@link #hasOldTuple()}.
     *
     * @return a view valid during the callback
     */
    public TupleView oldTuple() {
        return oldTuple;
    }

    /**
     * The new row (unchanged TOAST columns are not sent: see {@link TupleView#isUnchangedToast}).
     *
     * @return a view valid during the callback
     */
    public TupleView newTuple() {
        return newTuple;
    }
}
