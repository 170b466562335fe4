package io.pgrepl.codec.backend;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.internal.Wire;

/** CommandComplete 'C': one String, the command tag (e.g. {@code SELECT 3}, {@code CREATE_REPLICATION_SLOT}). */
public final class CommandComplete {
    private CommandComplete() {}

    /**
     * Reads the command tag.
     *
     * @param payload the bytes after the type and length, readerIndex to writerIndex; not moved
     * @return the tag, e.g. {@code INSERT 0 1}; the row count, if any, is its last word
     * @throws MalformedMessageException if the string is unterminated or followed by bytes
     */
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
