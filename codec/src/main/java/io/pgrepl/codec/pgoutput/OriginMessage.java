package io.pgrepl.codec.pgoutput;

import io.netty.buffer.ByteBuf;

/** Origin 'O': Int64 origin commit LSN, String origin name. */
public final class OriginMessage extends PgOutputMessage {
    int nameEnd;

    @Override
    public byte type() {
        return PgOutputMessageType.ORIGIN;
    }

    /** Commit LSN of the transaction on the origin server. */
    public long originLsn() {
        return buf.getLong(start + 1);
    }

    public String name() {
        return utf8(start + 9, nameEnd);
    }

    /** The name's UTF-8 bytes, as a slice of the message (no copy). */
    public ByteBuf nameBytes() {
        return buf.slice(start + 9, nameEnd - start - 9);
    }

    public boolean nameEquals(String s) {
        return utf8Equals(start + 9, nameEnd, s);
    }
}
