package io.pgrepl.codec.pgoutput;

/**
 * A message that carries the Int32 xid prefix when sent inside a Stream Start … Stream Stop block
 * (Relation, Type, Insert, Update, Delete, Truncate, Message).
 */
public abstract class StreamableMessage extends PgOutputMessage {
    boolean hasXid;
    long xid;
    /** Absolute index of the first field after the optional xid. */
    int body;

    final void wrapStreamable(boolean hasXid, long xid, int body) {
        this.hasXid = hasXid;
        this.xid = xid;
        this.body = body;
    }

    /**
     * Whether the message came inside a stream block and so names its (sub)transaction.
     *
     * @return true inside Stream Start ... Stream Stop
     */
    public final boolean hasXid() {
        return hasXid;
    }

    /**
     * The (sub)transaction xid when {@link #hasXid()} (InvalidTransactionId otherwise: outside a
     * stream block the enclosing Begin names the transaction).
     *
     * @return the xid as an unsigned 32-bit value, or 0
     */
    public final long xid() {
        return xid;
    }
}
