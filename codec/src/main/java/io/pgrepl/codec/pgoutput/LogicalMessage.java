package io.pgrepl.codec.pgoutput;

import io.netty.buffer.ByteBuf;

/**
 * Message 'M' (pg_logical_emit_message, PG14+ with option messages): [Int32 xid], Int8 flags,
 * Int64 LSN, String prefix, Int32 length, content bytes.
 */
public final class LogicalMessage extends StreamableMessage {
    public static final int FLAG_TRANSACTIONAL = 1;

    int prefixEnd;
    int contentIndex;
    int contentLength;

    @Override
    public byte type() {
        return PgOutputMessageType.MESSAGE;
    }

    public int flags() {
        return buf.getUnsignedByte(body);
    }

    /** Transactional messages arrive inside Begin/Commit; others arrive alone, even after rollback. */
    public boolean transactional() {
        return (flags() & FLAG_TRANSACTIONAL) != 0;
    }

    public long messageLsn() {
        return buf.getLong(body + 1);
    }

    public String prefix() {
        return utf8(body + 9, prefixEnd);
    }

    public boolean prefixEquals(String s) {
        return utf8Equals(body + 9, prefixEnd, s);
    }

    public int contentIndex() {
        return contentIndex;
    }

    public int contentLength() {
        return contentLength;
    }

    /** The content as a slice of the message (no copy; valid during the callback). */
    public ByteBuf content() {
        return buf.slice(contentIndex, contentLength);
    }
}
