package io.pgrepl.codec.backend;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.Wire;

/**
 * RowDescription 'T' flyweight: Int16 count, then per field String name, Int32 table OID,
 * Int16 column number, Int32 type OID, Int16 type length, Int32 type modifier, Int16 format.
 * {@link #wrap} validates the whole message once and remembers where each field starts;
 * accessors then read in place. Reusable: wrap the next frame into the same instance.
 */
public final class RowDescription {
    private static final int FIXED = 18; // bytes after each field's name
    private ByteBuf buf;
    private int count;
    private int[] nameStart = new int[8];
    private int[] nameEnd = new int[8];

    public RowDescription wrap(ByteBuf payload) {
        int base = payload.readerIndex();
        int end = payload.writerIndex();
        Wire.require(base, 2, end, "RowDescription", base, "field count");
        int n = payload.getShort(base);
        if (n < 0 || (long) n * (FIXED + 1) > end - base - 2) {
            throw new MalformedMessageException("RowDescription", 0, "field count " + n + " does not fit in the message");
        }
        if (nameStart.length < n) {
            nameStart = new int[n];
            nameEnd = new int[n];
        }
        int i = base + 2;
        for (int f = 0; f < n; f++) {
            int nul = Wire.cstringEnd(payload, i, end, "RowDescription", base);
            Wire.require(nul + 1, FIXED, end, "RowDescription", base, "field " + f);
            nameStart[f] = i;
            nameEnd[f] = nul;
            i = nul + 1 + FIXED;
        }
        if (i != end) {
            throw new MalformedMessageException("RowDescription", i - base, "trailing bytes");
        }
        this.buf = payload;
        this.count = n;
        return this;
    }

    public int fieldCount() {
        return count;
    }

    public String name(int field) {
        check(field);
        return Wire.utf8(buf, nameStart[field], nameEnd[field]);
    }

    public int tableOid(int field) {
        return buf.getInt(fixed(field));
    }

    public short columnNumber(int field) {
        return buf.getShort(fixed(field) + 4);
    }

    public int typeOid(int field) {
        return buf.getInt(fixed(field) + 6);
    }

    public short typeLength(int field) {
        return buf.getShort(fixed(field) + 10);
    }

    public int typeModifier(int field) {
        return buf.getInt(fixed(field) + 12);
    }

    /** 0 text, 1 binary. */
    public short format(int field) {
        return buf.getShort(fixed(field) + 16);
    }

    private int fixed(int field) {
        check(field);
        return nameEnd[field] + 1;
    }

    private void check(int field) {
        if (field < 0 || field >= count) {
            throw new IndexOutOfBoundsException("field " + field + " of " + count);
        }
    }
}
