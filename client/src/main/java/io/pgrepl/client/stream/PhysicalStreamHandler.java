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
    default void onStarted(PhysicalReplicationStream stream) {}

    /**
     * One XLogData message, a reused view over the receive buffer: WAL bytes
     * {@code [wal.walStart(), wal.walStart() + wal.dataLength())} at
     * {@code wal.buffer()[wal.dataIndex() ...]}; {@code wal.walEnd()} is the server's end of WAL at
     * sending time. The default hands a slice to {@link #onWal(long, long, long, ByteBuf)}.
     */
    default void onWal(XLogData wal) {
        onWal(wal.walStart(), wal.walEnd(), wal.sendTimeMicros(), wal.buffer().slice(wal.dataIndex(), wal.dataLength()));
    }

    /**
     * WAL bytes {@code [walStart, walStart + data.readableBytes())}; {@code serverWalEnd} is the
     * server's end of WAL at sending time. Allocates a slice per message: prefer {@link #onWal(XLogData)}.
     */
    default void onWal(long walStart, long serverWalEnd, long sendTimeMicros, ByteBuf data) {
        throw new UnsupportedOperationException("a PhysicalStreamHandler must implement one of the onWal methods");
    }

    default void onKeepalive(PrimaryKeepalive keepalive) {}
}
