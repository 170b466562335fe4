package io.pgrepl.client.stream;

import io.netty.buffer.ByteBuf;

/**
 * A {@link LogicalStreamHandler} that takes row changes undecoded: the stream only frames an
 * Insert, Update or Delete message and hands its pgoutput bytes here instead of decoding it, so a
 * handler that decodes elsewhere (the Flow face decodes on the subscriber's thread) decodes each
 * change once. Every other message is decoded and dispatched as usual, and de-duplication applies
 * to the raw changes too (a change of a transaction withheld as a duplicate never arrives).
 *
 * <p>The bytes are not validated: whoever decodes them reports a malformed change. The decoder
 * that reads them must see every other message of the stream in order (Relation for its cache,
 * Stream Start/Stop for the transaction id a streamed change carries).
 */
public interface RawChangeHandler extends LogicalStreamHandler {
    /**
     * One Insert, Update or Delete message, after {@link #onXLogData} for its XLogData.
     *
     * @param buffer the receive buffer, valid only during the call (copy what you keep)
     * @param index  the message's first byte, its type ({@code 'I'}, {@code 'U'} or {@code 'D'})
     * @param length the message's length in bytes
     */
    void onRawChange(ByteBuf buffer, int index, int length);
}
