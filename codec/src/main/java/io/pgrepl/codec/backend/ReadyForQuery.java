package io.pgrepl.codec.backend;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.MalformedMessageException;

/** ReadyForQuery 'Z': Byte1 transaction status, one of I (idle), T (in a block), E (failed block). */
public final class ReadyForQuery {
    public static final byte IDLE = 'I';
    public static final byte IN_TRANSACTION = 'T';
    public static final byte FAILED_TRANSACTION = 'E';

    private ReadyForQuery() {}

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
