package io.pgrepl.codec.backend;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.Wire;

/**
 * DataRow 'D' flyweight: Int16 count, then per column Int32 length (-1 = NULL) and that many
 * bytes. Validated once in {@link #wrap}; values are read in place or sliced without copying.
 */
public final class DataRow {
    private ByteBuf buf;
    private int count;
    private int[] offsets = new int[8];
    private int[] lengths = new int[8];

    public DataRow wrap(ByteBuf payload) {
        int base = payload.readerIndex();
        int end = payload.writerIndex();
        Wire.require(base, 2, end, "DataRow", base, "column count");
        int n = payload.getShort(base);
        if (n < 0 || (long) n * 4 > end - base - 2) {
            throw new MalformedMessageException("DataRow", 0, "column count " + n + " does not fit in the message");
        }
        if (offsets.length < n) {
            offsets = new int[n];
            lengths = new int[n];
        }
        int i = base + 2;
        for (int c = 0; c < n; c++) {
            Wire.require(i, 4, end, "DataRow", base, "length of column " + c);
            int len = payload.getInt(i);
            i += 4;
            if (len < -1) {
                throw new MalformedMessageException("DataRow", i - 4 - base, "negative length " + len + " for column " + c);
            }
            if (len > 0) Wire.require(i, len, end, "DataRow", base, "column " + c);
            offsets[c] = i;
            lengths[c] = len;
            if (len > 0) i += len;
        }
        if (i != end) {
            throw new MalformedMessageException("DataRow", i - base, "trailing bytes");
        }
        this.buf = payload;
        this.count = n;
        return this;
    }

    public int columnCount() {
        return count;
    }

    public boolean isNull(int column) {
        return length(column) < 0;
    }

    /** Byte length of the value, -1 for NULL. */
    public int length(int column) {
        if (column < 0 || column >= count) {
            throw new IndexOutOfBoundsException("column " + column + " of " + count);
        }
        return lengths[column];
    }

    /** Absolute index of the value's first byte in the wrapped buffer. */
    public int offset(int column) {
        length(column);
        return offsets[column];
    }

    /** The value as a slice sharing the frame's memory, or null for NULL. Valid only while the frame is. */
    public ByteBuf slice(int column) {
        int len = length(column);
        return len < 0 ? null : buf.slice(offsets[column], len);
    }

    /** The value decoded as UTF-8 text, or null. */
    public String text(int column) {
        int len = length(column);
        return len < 0 ? null : Wire.utf8(buf, offsets[column], offsets[column] + len);
    }

    /** A copy of the value's bytes, or null; for values that must outlive the frame. */
    public byte[] bytes(int column) {
        int len = length(column);
        if (len < 0) return null;
        byte[] b = new byte[len];
        buf.getBytes(offsets[column], b);
        return b;
    }
}
