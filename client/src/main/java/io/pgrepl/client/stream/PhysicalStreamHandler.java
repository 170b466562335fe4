package io.pgrepl.client.stream;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.replication.PrimaryKeepalive;
import io.pgrepl.codec.replication.XLogData;

/**
 * Receives raw WAL on the event loop. Implement one of the two {@code onWal} methods: the
 * {@link XLogData} one reads in place (no allocation per message), the {@link ByteBuf} one gets a
 * slice. Either way the bytes are valid only during the call: retain or copy what you keep.
 */
public interface PhysicalStreamHandler {
    /**
     * The stream is in copy mode; called once before any WAL.
     *
     * @param stream the stream, to acknowledge or stop it
     */
    default void onStarted(PhysicalReplicationStream stream) {}

    /**
     * One XLogData message, a reused view over the receive buffer: WAL bytes
     * {@code [wal.walStart(), wal.walStart() + wal.dataLength())} at
     * {@code wal.buffer()[wal.dataIndex() ...]}; {@code wal.walEnd()} is the server's end of WAL at
     * sending time. The default hands a slice to {@link #onWal(long, long, long, ByteBuf)}.
     *
     * @param wal the message, valid only during the call
     */
    default void onWal(XLogData wal) {
        onWal(wal.walStart(), wal.walEnd(), wal.sendTimeMicros(), wal.buffer().slice(wal.dataIndex(), wal.dataLength()));
    }

    /**
     * WAL bytes {@code [walStart, walStart + data.readableBytes())}; {@code serverWalEnd} is the
     * server's end of WAL at sending time. Allocates a slice per message: prefer {@link #onWal(XLogData)}.
     *
     * @param walStart       the WAL position of the first byte
     * @param serverWalEnd   the server's end of WAL
     * @param sendTimeMicros the server's send time, microseconds since 2000-01-01 UTC
     * @param data           the WAL bytes, valid only during the call
     */
    default void onWal(long walStart, long serverWalEnd, long sendTimeMicros, ByteBuf data) {
        throw new UnsupportedOperationException("a PhysicalStreamHandler must implement one of the onWal methods");
    }

    /**
     * A primary keepalive (answered already if it asked for a reply).
     *
     * @param keepalive the message, valid only during the call
     */
    default void onKeepalive(PrimaryKeepalive keepalive) {}
}
