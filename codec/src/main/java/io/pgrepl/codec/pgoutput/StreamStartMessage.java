package io.pgrepl.codec.pgoutput;

/** Stream Start 'S' (PG14+, proto 2): Int32 xid, Int8 first segment (1 = first block for this xid). */
public final class StreamStartMessage extends PgOutputMessage {
    static final int LENGTH = 6;

    @Override
    public byte type() {
        return PgOutputMessageType.STREAM_START;
    }

    /**
     * Top-level xid of the streamed transaction.
     *
     * @return the xid, an unsigned 32-bit value
     */
    public long xid() {
        return buf.getUnsignedInt(start + 1);
    }

    /**
     * The first-segment flag as sent.
     *
     * @return 1 if this is the transaction's first stream block, else 0
     */
    public int firstSegmentByte() {
        return buf.getUnsignedByte(start + 5);
    }

    /**
     * Whether this is the first stream block for the xid (no earlier chunk to append to).
     *
     * @return true if {@link #firstSegmentByte()} is 1
     */
    public boolean isFirstSegment() {
        return firstSegmentByte() == 1;
    }
}
