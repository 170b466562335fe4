package io.pgrepl.codec.backend;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.internal.Wire;

/**
 * ParameterStatus 'S': String name, String value. Rare, so decoded to a record.
 *
 * @param name  the run-time parameter's name, e.g. {@code server_version}
 * @param value its current value, as text
 */
public record ParameterStatus(String name, String value) {
    /**
     * Decodes a ParameterStatus payload.
     *
     * @param payload the bytes after the type and length, readerIndex to writerIndex; not moved
     * @return the name and value
     * @throws MalformedMessageException if a string is unterminated or followed by bytes
     */
    public static ParameterStatus decode(ByteBuf payload) {
        int base = payload.readerIndex();
        int end = payload.writerIndex();
        int n = Wire.cstringEnd(payload, base, end, "ParameterStatus", base);
        int v = Wire.cstringEnd(payload, n + 1, end, "ParameterStatus", base);
        if (v + 1 != end) {
            throw new MalformedMessageException("ParameterStatus", v + 1 - base, "trailing bytes");
        }
        return new ParameterStatus(Wire.utf8(payload, base, n), Wire.utf8(payload, n + 1, v));
    }
}
