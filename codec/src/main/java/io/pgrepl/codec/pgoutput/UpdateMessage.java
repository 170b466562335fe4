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

    public int relationOid() {
        return relation.oid();
    }

    public RelationInfo relation() {
        return relation;
    }

    /** 'K' (old key only), 'O' (whole old row, REPLICA IDENTITY FULL), or 0 when absent. */
    public char oldTupleKind() {
        return (char) oldKind;
    }

    public boolean hasOldTuple() {
        return oldKind != 0;
    }

    /** The old key or row; only meaningful when {@link #hasOldTuple()}. */
    public TupleView oldTuple() {
        return oldTuple;
    }

    public TupleView newTuple() {
        return newTuple;
    }
}
