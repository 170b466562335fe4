package io.pgrepl.codec.replication;

import io.netty.buffer.ByteBuf;

/**
 * Hot standby feedback 'h': Int64 clientTime, Int32 xmin, Int32 xmin epoch, Int32 catalog_xmin,
 * Int32 catalog_xmin epoch. For physical standbys; logical clients should not send it.
 */
public final class HotStandbyFeedback {
    /** The message's type byte, first in the CopyData payload. */
    public static final byte TYPE = 'h';
    /** Payload length in bytes, type byte included. */
    public static final int LENGTH = 25;

    private HotStandbyFeedback() {}

    /**
     * Writes the 25-byte payload at {@code out}'s writer index (no CopyData envelope); pass 0 for
     * xmin (and epoch) to stop holding back the horizon.
     *
     * @param out              the buffer to append to; grown if needed
     * @param clientTimeMicros the client's clock, microseconds since 2000-01-01 00:00 UTC
     * @param xmin             the standby's current global xmin (32-bit xid), excluding slots' catalog_xmin; 0 for none
     * @param xminEpoch        the epoch of {@code xmin}
     * @param catalogXmin      the lowest catalog_xmin of the standby's replication slots (32-bit xid), or 0 for none
     * @param catalogXminEpoch the epoch of {@code catalogXmin}
     * @return {@code out}
     */
    public static ByteBuf encode(ByteBuf out, long clientTimeMicros, int xmin, int xminEpoch, int catalogXmin,
                                 int catalogXminEpoch) {
        out.ensureWritable(LENGTH);
        out.writeByte(TYPE);
        out.writeLong(clientTimeMicros);
        out.writeInt(xmin);
        out.writeInt(xminEpoch);
        out.writeInt(catalogXmin);
        out.writeInt(catalogXminEpoch);
        return out;
    }
}
