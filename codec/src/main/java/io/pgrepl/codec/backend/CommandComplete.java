package io.pgrepl.codec.backend;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.Wire;

/** CommandComplete 'C': one String, the command tag (e.g. {@code SELECT 3}, {@code CREATE_REPLICATION_SLOT}). */
public final class CommandComplete {
    private CommandComplete() {}

    public static String tag(ByteBuf payload) {
        int base = payload.readerIndex();
        int end = payload.writerIndex();
        int nul = Wire.cstringEnd(payload, base, end, "CommandComplete", base);
        if (nul + 1 != end) {
            throw new MalformedMessageException("CommandComplete", nul + 1 - base, "trailing bytes");
        }
        return Wire.utf8(payload, base, nul);
    }
}
