package io.pgrepl.codec.backend;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.internal.Wire;

/**
 * CopyInResponse 'G', CopyOutResponse 'H' and CopyBothResponse 'W' share one layout:
 * Int8 overall format, Int16 column count, Int16 format per column.
 *
 * @param type          the message's type byte, {@code 'G'}, {@code 'H'} or {@code 'W'}
 * @param overallFormat 0 for text COPY, 1 for binary
 * @param columnFormats format code per column, 0 text or 1 binary (all equal to the overall format
 *                      today); empty for CopyBothResponse in replication
 */
public record CopyResponse(byte type, int overallFormat, short[] columnFormats) {
    /**
     * Decodes a CopyInResponse, CopyOutResponse or CopyBothResponse payload.
     *
     * @param type    the message's type byte, for errors and the result
     * @param payload the bytes after the type and length, readerIndex to writerIndex; not moved
     * @return the formats
     * @throws MalformedMessageException if the column count does not match the length
     */
    public static CopyResponse decode(byte type, ByteBuf payload) {
        String name = BackendMessage.name(type);
        int base = payload.readerIndex();
        int end = payload.writerIndex();
        Wire.require(base, 3, end, name, base, "format and column count");
        int format = payload.getByte(base);
        int n = payload.getShort(base + 1);
        if (n < 0 || base + 3 + 2L * n != end) {
            throw new MalformedMessageException(name, 1, "column count " + n + " does not match the message length");
        }
        short[] formats = new short[n];
        for (int i = 0; i < n; i++) formats[i] = payload.getShort(base + 3 + 2 * i);
        return new CopyResponse(type, format, formats);
    }
}
