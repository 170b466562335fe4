package io.pgrepl.client.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import java.util.Map;

/** What an active {@link Exchange} may do with its connection. Event-loop use only. */
public interface ExchangeContext {
    ByteBufAllocator alloc();

    /** Queues an encoded frontend message; nothing reaches the socket before {@link #flush()}. */
    void write(ByteBuf message);

    void flush();

    default void writeAndFlush(ByteBuf message) {
        write(message);
        flush();
    }

    /** The underlying channel: for {@code config().setAutoRead(false)} backpressure and the event loop. */
    Channel channel();

    /** server_version_num of the server (e.g. 170006), 0 before the server reported it. */
    int serverVersionNum();

    /** ParameterStatus values reported so far. */
    Map<String, String> parameters();
}
