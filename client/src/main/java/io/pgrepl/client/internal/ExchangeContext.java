package io.pgrepl.client.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import java.util.Map;

/** What an active {@link Exchange} may do with its connection. Event-loop use only. */
public interface ExchangeContext {
    /** {@return the channel's allocator, to encode messages with} */
    ByteBufAllocator alloc();

    /**
     * Queues an encoded frontend message; nothing reaches the socket before {@link #flush()}.
     *
     * @param message the message; ownership passes to the connection
     */
    void write(ByteBuf message);

    /** Sends what {@link #write} queued. */
    void flush();

    /**
     * Writes and sends one message.
     *
     * @param message the message; ownership passes to the connection
     */
    default void writeAndFlush(ByteBuf message) {
        write(message);
        flush();
    }

    /**
     * The underlying channel: for {@code config().setAutoRead(false)} backpressure and the event loop.
     *
     * @return the channel
     */
    Channel channel();

    /**
     * server_version_num of the server (e.g. 170006), 0 before the server reported it.
     *
     * @return the version number, or 0
     */
    int serverVersionNum();

    /**
     * ParameterStatus values reported so far.
     *
     * @return the parameter names and values
     */
    Map<String, String> parameters();
}
