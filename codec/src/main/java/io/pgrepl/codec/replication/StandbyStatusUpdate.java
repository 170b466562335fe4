package io.pgrepl.codec.replication;

import io.netty.buffer.ByteBuf;

/**
 * Standby status update 'r' (client → server CopyData payload): Int64 write, Int64 flush,
 * Int64 apply (each the last byte + 1 received/durable/applied), Int64 clientTime, Byte1 replyRequested.
 * The server advances a logical slot from the flush field only.
 */
public final class StandbyStatusUpdate {
    /** The message's type byte, first in the CopyData payload. */
    public static final byte TYPE = 'r';
    /** Payload length in bytes, type byte included. */
    public static final int LENGTH = 34;

    private StandbyStatusUpdate() {}

    /**
     * Writes the 34-byte payload at {@code out}'s writer index (no CopyData envelope).
     *
     * @param out              the buffer to append to; grown if needed
     * @param writeLsn         LSN of the last WAL byte + 1 received and written
     * @param flushLsn         LSN of the last WAL byte + 1 durably processed; the slot's confirmed_flush_lsn follows it
     * @param applyLsn         LSN of the last WAL byte + 1 applied
     * @param clientTimeMicros the client's clock, microseconds since 2000-01-01 00:00 UTC
     * @param replyRequested   whether the server should answer at once with a keepalive
     * @return {@code out}
     */
    public static ByteBuf encode(ByteBuf out, long writeLsn, long flushLsn, long applyLsn, long clientTimeMicros,
                                 boolean replyRequested) {
        out.ensureWritable(LENGTH);
        out.writeByte(TYPE);
        out.writeLong(writeLsn);
        out.writeLong(flushLsn);
        out.writeLong(applyLsn);
        out.writeLong(clientTimeMicros);
        out.writeByte(replyRequested ? 1 : 0);
        return out;
    }
}
