package io.pgrepl.codec.backend;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.Wire;

/** ParameterStatus 'S': String name, String value. Rare, so decoded to a record. */
public record ParameterStatus(String name, String value) {
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
