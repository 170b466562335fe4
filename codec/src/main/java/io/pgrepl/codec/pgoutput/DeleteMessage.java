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

    public int relationOid() {
        return relation.oid();
    }

    public RelationInfo relation() {
        return relation;
    }

    /** 'K' (key columns only) or 'O' (whole old row, REPLICA IDENTITY FULL). */
    public char oldTupleKind() {
        return (char) oldKind;
    }

    public TupleView oldTuple() {
        return oldTuple;
    }
}
