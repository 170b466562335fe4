package io.pgrepl.codec.backend;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.MalformedMessageException;

/** ReadyForQuery 'Z': Byte1 transaction status, one of I (idle), T (in a block), E (failed block). */
public final class ReadyForQuery {
    /** 'I': idle, not in a transaction block. */
    public static final byte IDLE = 'I';
    /** 'T': in a transaction block. */
    public static final byte IN_TRANSACTION = 'T';
    /** 'E': in a failed transaction block; queries are rejected until it ends. */
    public static final byte FAILED_TRANSACTION = 'E';

    private ReadyForQuery() {}

    /**
     * Reads the transaction status.
     *
     * @param payload the bytes after the type and length, readerIndex to writerIndex; not moved
     * @return {@link #IDLE}, {@link #IN_TRANSACTION} or {@link #FAILED_TRANSACTION}
     * @throws MalformedMessageException if the payload is not one known status byte
     */
    public static byte status(ByteBuf payload) {
        if (payload.readableBytes() != 1) {
            throw new MalformedMessageException("ReadyForQuery", 0, "payload of " + payload.readableBytes() + " bytes, expected 1");
        }
        byte s = payload.getByte(payload.readerIndex());
        if (s != IDLE && s != IN_TRANSACTION && s != FAILED_TRANSACTION) {
            throw new MalformedMessageException("ReadyForQuery", 0, "unknown transaction status 0x" + Integer.toHexString(s & 0xff));
        }
        return s;
    }
}
