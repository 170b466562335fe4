package io.pgrepl.codec.backend;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.internal.Wire;

/**
 * DataRow 'D' flyweight: Int16 count, then per column Int32 length (-1 = NULL) and that many
 * bytes. Validated once in {@link #wrap}; values are read in place or sliced without copying.
 * One instance is reused for every row: what it returns is valid only until the next
 * {@code wrap} and while the frame's buffer is alive.
 */
public final class DataRow {
    private ByteBuf buf;
    private int count;
    private int[] offsets = new int[8];
    private int[] lengths = new int[8];

    /**
     * Points this view at a DataRow payload, checking every length against the frame first.
     *
     * @param payload the bytes after the type and length, readerIndex to writerIndex; not moved
     * @return this view
     * @throws MalformedMessageException if a count or length does not fit the message
     */
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

    /**
     * Number of columns in the row, as sent in the Int16 count.
     *
     * @return the column count
     */
    public int columnCount() {
        return count;
    }

    /**
     * Whether the column is SQL NULL (sent as length -1).
     *
     * @param column zero-based column index
     * @return true for NULL
     * @throws IndexOutOfBoundsException if there is no such column
     */
    public boolean isNull(int column) {
        return length(column) < 0;
    }

    /**
     * Byte length of the value.
     *
     * @param column zero-based column index
     * @return the length in bytes, -1 for NULL
     * @throws IndexOutOfBoundsException if there is no such column
     */
    public int length(int column) {
        if (column < 0 || column >= count) {
            throw new IndexOutOfBoundsException("column " + column + " of " + count);
        }
        return lengths[column];
    }

    /**
     * Absolute index of the value's first byte in the wrapped buffer.
     *
     * @param column zero-based column index
     * @return an index into the wrapped buffer, meaningful only when the value is not NULL
     * @throws IndexOutOfBoundsException if there is no such column
     */
    public int offset(int column) {
        length(column);
        return offsets[column];
    }

    /**
     * The value as a slice sharing the frame's memory. Valid only while the frame is.
     *
     * @param column zero-based column index
     * @return a slice without its own reference count, or null for NULL
     * @throws IndexOutOfBoundsException if there is no such column
     */
    public ByteBuf slice(int column) {
        int len = length(column);
        return len < 0 ? null : buf.slice(offsets[column], len);
    }

    /**
     * The value decoded as UTF-8 text (a text-format column).
     *
     * @param column zero-based column index
     * @return the text, or null for NULL
     * @throws IndexOutOfBoundsException if there is no such column
     */
    public String text(int column) {
        int len = length(column);
        return len < 0 ? null : Wire.utf8(buf, offsets[column], offsets[column] + len);
    }

    /**
     * A copy of the value's bytes, for values that must outlive the frame.
     *
     * @param column zero-based column index
     * @return a new array, or null for NULL
     * @throws IndexOutOfBoundsException if there is no such column
     */
    public byte[] bytes(int column) {
        int len = length(column);
        if (len < 0) return null;
        byte[] b = new byte[len];
        buf.getBytes(offsets[column], b);
        return b;
    }
}
