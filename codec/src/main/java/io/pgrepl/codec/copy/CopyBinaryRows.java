package io.pgrepl.codec.copy;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.internal.Wire;
import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.codec.pgoutput.TupleFiller;

/**
 * COPY's binary format: an 11-byte signature, Int32 flags, Int32 header-extension length and the
 * extension; then per tuple Int16 field count and per field Int32 length (-1: NULL) and the
 * send function's bytes; then the Int16 -1 trailer. Values are read in place.
 */
final class CopyBinaryRows {
    private static final String NAME = "CopyData";
    private static final byte[] SIGNATURE = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xFF, '\r', '\n', 0};
    private final TupleFiller filler;
    private boolean headerSeen;
    private boolean trailerSeen;

    CopyBinaryRows(TupleFiller filler) {
        this.filler = filler;
    }

    void reset() {
        headerSeen = false;
        trailerSeen = false;
    }

    boolean trailerSeen() {
        return trailerSeen;
    }

    int decode(ByteBuf buf, RelationInfo relation, CopyOutDecoder.RowHandler handler) {
        int base = buf.readerIndex();
        int end = buf.writerIndex();
        int i = base;
        if (!headerSeen) {
            i = header(buf, base, end);
            headerSeen = true;
        }
        int rows = 0;
        int count = relation.columnCount();
        while (i < end) {
            if (trailerSeen) throw new MalformedMessageException(NAME, i - base, "data after the binary trailer");
            Wire.require(i, 2, end, NAME, base, "field count");
            short fields = buf.getShort(i);
            i += 2;
            if (fields == -1) {
                trailerSeen = true;
                continue;
            }
            if (fields != count) {
                throw new MalformedMessageException(NAME, i - 2 - base, "tuple has " + fields + " fields, expected " + count);
            }
            filler.reset(buf, relation, count);
            for (int c = 0; c < count; c++) {
                Wire.require(i, 4, end, NAME, base, "field length");
                int len = buf.getInt(i);
                i += 4;
                if (len == -1) {
                    filler.nullValue(c);
                } else {
                    if (len < 0) throw new MalformedMessageException(NAME, i - 4 - base, "negative field length " + len);
                    Wire.require(i, len, end, NAME, base, "field value");
                    filler.value(c, true, i, len);
                    i += len;
                }
            }
            handler.onRow(filler.view());
            rows++;
        }
        return rows;
    }

    private static int header(ByteBuf buf, int base, int end) {
        Wire.require(base, SIGNATURE.length + 8, end, NAME, base, "binary COPY header");
        for (int k = 0; k < SIGNATURE.length; k++) {
            if (buf.getByte(base + k) != SIGNATURE[k]) throw new MalformedMessageException(NAME, k, "not a binary COPY signature");
        }
        int flags = buf.getInt(base + 11);
        // Bit 16 (OIDs) and the reserved bits 0-15 change the layout; bits 17-31 may be ignored.
        if ((flags & 0xFFFF) != 0 || (flags & (1 << 16)) != 0) {
            throw new MalformedMessageException(NAME, 11, "binary COPY flags 0x" + Integer.toHexString(flags) + " not supported");
        }
        int ext = buf.getInt(base + 15);
        if (ext < 0) throw new MalformedMessageException(NAME, 15, "negative header extension length");
        Wire.require(base + 19, ext, end, NAME, base, "header extension");
        return base + 19 + ext;
    }
}
