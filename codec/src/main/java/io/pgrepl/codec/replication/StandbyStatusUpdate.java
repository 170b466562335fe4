package io.pgrepl.codec.replication;

import io.netty.buffer.ByteBuf;

/**
 * Standby status update 'r' (client → server CopyData payload): Int64 write, Int64 flush,
 * Int64 apply (each the last byte + 1 received/durable/applied), Int64 clientTime, Byte1 replyRequested.
 * The server advances a logical slot from the flush field only.
 */
public final class StandbyStatusUpdate {
    public static final byte TYPE = 'r';
    public static final int LENGTH = 34;

    private StandbyStatusUpdate() {}

    /** Writes the 34-byte payload at {@code out}'s writer index (no CopyData envelope). */
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
