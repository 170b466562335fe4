package io.pgrepl.codec.pgoutput;

import io.netty.buffer.ByteBuf;

/** Origin 'O': Int64 origin commit LSN, String origin name. */
public final class OriginMessage extends PgOutputMessage {
    int nameEnd;

    @Override
    public byte type() {
        return PgOutputMessageType.ORIGIN;
    }

    /**
     * Commit LSN of the transaction on the origin server.
     *
     * @return the LSN on the origin server
     */
    public long originLsn() {
        return buf.getLong(start + 1);
    }

    /**
     * The replication origin's name, as in {@code pg_replication_origin.roname}.
     *
     * @return the origin name, decoded as UTF-8
     */
    public String name() {
        return utf8(start + 9, nameEnd);
    }

    /**
     * The name's UTF-8 bytes, as a slice of the message (no copy).
     *
     * @return a slice sharing the message's memory; valid during the callback only
     */
    public ByteBuf nameBytes() {
        return buf.slice(start + 9, nameEnd - start - 9);
    }

    /**
     * Compares the origin name with a string without decoding it (no allocation for ASCII).
     *
     * @param s the name to compare with
     * @return true if the name's bytes are the UTF-8 encoding of {@code s}
     */
    public boolean nameEquals(String s) {
        return utf8Equals(start + 9, nameEnd, s);
    }
}
