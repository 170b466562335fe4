package io.pgrepl.client.internal;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.backend.ErrorFields;

/**
 * One request/response conversation on a connection: a simple query, a replication command,
 * the startup handshake, or (added by the streaming layer) a CopyBoth stream. The connection
 * runs exchanges one at a time from a FIFO queue (no pipelining); the active exchange receives
 * every frame except the asynchronous ones, which the connection handles itself at any time,
 * copy mode included: ParameterStatus, NoticeResponse, NotificationResponse.
 *
 * <p>All methods are called on the connection's event loop and must not block.
 */
public interface Exchange {
    /**
     * This exchange becomes active: write its request(s) through {@code ctx}.
     *
     * @param ctx the connection
     * @throws Exception to fail the connection
     */
    void start(ExchangeContext ctx) throws Exception;

    /**
     * A frame for this exchange (ErrorResponse included). The payload is only valid during the
     * call unless retained. Return {@code true} once the exchange is over (normally after the
     * ReadyForQuery); the next queued exchange then starts. A thrown exception fails the
     * connection (protocol violation) after {@link #fail} is called.
     *
     * @param type    the message type byte
     * @param payload the body after the length word
     * @return whether the exchange is over
     * @throws Exception to fail the connection
     */
    boolean onFrame(byte type, ByteBuf payload) throws Exception;

    /**
     * The connection closed or failed before this exchange finished (whether it was active or
     * still queued). Complete the exchange's future exceptionally.
     *
     * @param cause why the connection ended
     */
    void fail(Throwable cause);

    /**
     * A NoticeResponse arrived while this exchange was active. Called before the connection's
     * notice listener, which sees every notice whatever this does: an exchange reacts to notices
     * that change its own outcome (pgoutput's warnings in copy mode) without taking the user's
     * listener.
     *
     * @param notice the notice's fields
     */
    default void onNotice(ErrorFields notice) {}

    /**
     * One read from the socket is over, and its complete frames were delivered (while this
     * exchange was active): where per-read rather than per-frame work goes.
     *
     * @param bytesRead the bytes that read brought in
     */
    default void onReadComplete(int bytesRead) {}
}
