package io.pgrepl.client.stream;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.replication.PrimaryKeepalive;

/** Receives raw WAL on the event loop. The buffer is a slice valid only during the call: retain or copy what you keep. */
public interface PhysicalStreamHandler {
    default void onStarted(PhysicalReplicationStream stream) {}

    /**
     * WAL bytes {@code [walStart, walStart + data.readableBytes())}; {@code serverWalEnd} is the
     * server's end of WAL at sending time.
     */
    void onWal(long walStart, long serverWalEnd, long sendTimeMicros, ByteBuf data);

    default void onKeepalive(PrimaryKeepalive keepalive) {}
}
