package io.pgrepl.codec.replication;

import io.netty.buffer.ByteBuf;

/**
 * Hot standby feedback 'h': Int64 clientTime, Int32 xmin, Int32 xmin epoch, Int32 catalog_xmin,
 * Int32 catalog_xmin epoch. For physical standbys; logical clients should not send it.
 */
public final class HotStandbyFeedback {
    public static final byte TYPE = 'h';
    public static final int LENGTH = 25;

    private HotStandbyFeedback() {}

    /** Writes the 25-byte payload; pass 0 for xmin (and epoch) to stop holding back the horizon. */
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
