package io.pgrepl.codec.pgoutput;

import io.netty.buffer.ByteBuf;

/** Two-phase messages (PG15+, proto 3) end with the xid and the String gid. */
public abstract class TwoPhaseMessage extends PgOutputMessage {
    int gidEnd;

    /** Offset of the Int32 xid from the type byte; the gid follows it. */
    abstract int xidOffset();

    /**
     * The xid of the prepared transaction.
     *
     * @return the xid, an unsigned 32-bit value
     */
    public final long xid() {
        return buf.getUnsignedInt(start + xidOffset());
    }

    /**
     * The global transaction identifier given to PREPARE TRANSACTION.
     *
     * @return the gid, decoded as UTF-8
     */
    public final String gid() {
        return utf8(start + xidOffset() + 4, gidEnd);
    }

    /**
     * Compares the gid with a string without decoding it (no allocation for ASCII).
     *
     * @param s the gid to compare with
     * @return true if the gid's bytes are the UTF-8 encoding of {@code s}
     */
    public final boolean gidEquals(String s) {
        return utf8Equals(start + xidOffset() + 4, gidEnd, s);
    }

    /**
     * The gid's bytes as a slice of the message (no copy).
     *
     * @return a slice sharing the message's memory; valid during the callback only
     */
    public final ByteBuf gidBytes() {
        int from = start + xidOffset() + 4;
        return buf.slice(from, gidEnd - from);
    }
}
