package io.pgrepl.codec.pgoutput;

/** Stream Start 'S' (PG14+, proto 2): Int32 xid, Int8 first segment (1 = first block for this xid). */
public final class StreamStartMessage extends PgOutputMessage {
    static final int LENGTH = 6;

    @Override
    public byte type() {
        return PgOutputMessageType.STREAM_START;
    }

    /** Top-level xid of the streamed transaction. */
    public long xid() {
        return buf.getUnsignedInt(start + 1);
    }

    public int firstSegmentByte() {
        return buf.getUnsignedByte(start + 5);
    }

    public boolean isFirstSegment() {
        return firstSegmentByte() == 1;
    }
}
