package io.pgrepl.codec.pgoutput;

import io.netty.buffer.ByteBuf;

/**
 * Message 'M' (pg_logical_emit_message, PG14+ with option messages): [Int32 xid], Int8 flags,
 * Int64 LSN, String prefix, Int32 length, content bytes.
 */
public final class LogicalMessage extends StreamableMessage {
    /** Flags bit 1: the message was emitted with {@code transactional => true}. */
    public static final int FLAG_TRANSACTIONAL = 1;

    int prefixEnd;
    int contentIndex;
    int contentLength;

    @Override
    public byte type() {
        return PgOutputMessageType.MESSAGE;
    }

    /**
     * The Int8 flags; only {@link #FLAG_TRANSACTIONAL} is defined.
     *
     * @return the flags byte
     */
    public int flags() {
        return buf.getUnsignedByte(body);
    }

    /**
     * Transactional messages arrive inside Begin/Commit; others arrive alone, even after rollback.
     *
     * @return true if {@link #FLAG_TRANSACTIONAL} is set
     */
    public boolean transactional() {
        return (flags() & FLAG_TRANSACTIONAL) != 0;
    }

    /**
     * The LSN of the logical decoding message record.
     *
     * @return the message LSN
     */
    public long messageLsn() {
        return buf.getLong(body + 1);
    }

    /**
     * The prefix given to pg_logical_emit_message.
     *
     * @return the prefix, decoded as UTF-8
     */
    public String prefix() {
        return utf8(body + 9, prefixEnd);
    }

    /**
     * Compares the prefix with a string without decoding it (no allocation for ASCII).
     *
     * @param s the prefix to compare with
     * @return true if the prefix's bytes are the UTF-8 encoding of {@code s}
     */
    public boolean prefixEquals(String s) {
        return utf8Equals(body + 9, prefixEnd, s);
    }

    /**
     * Where the content starts, to read it in place from {@link #buffer()}.
     *
     * @return the absolute index of the content's first byte
     */
    public int contentIndex() {
        return contentIndex;
    }

    /**
     * Length of the content, as sent in its Int32 length.
     *
     * @return the content length in bytes
     */
    public int contentLength() {
        return contentLength;
    }

    /**
     * The content as a slice of the message (no copy; valid during the callback).
     *
     * @return a slice without its own reference count
     */
    public ByteBuf content() {
        return buf.slice(contentIndex, contentLength);
    }
}
