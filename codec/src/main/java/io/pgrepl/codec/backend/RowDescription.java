package io.pgrepl.codec.backend;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.internal.Wire;

/**
 * RowDescription 'T' flyweight: Int16 count, then per field String name, Int32 table OID,
 * Int16 column number, Int32 type OID, Int16 type length, Int32 type modifier, Int16 format.
 * {@link #wrap} validates the whole message once and remembers where each field starts;
 * accessors then read in place. Reusable: wrap the next frame into the same instance; what it
 * returns is valid only until the next {@code wrap} and while the frame's buffer is alive.
 */
public final class RowDescription {
    private static final int FIXED = 18; // bytes after each field's name
    private ByteBuf buf;
    private int count;
    private int[] nameStart = new int[8];
    private int[] nameEnd = new int[8];

    /**
     * Points this view at a RowDescription payload, checking every field against the frame first.
     *
     * @param payload the bytes after the type and length, readerIndex to writerIndex; not moved
     * @return this view
     * @throws MalformedMessageException if the count or a field does not fit the message
     */
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

    /**
     * Number of fields (result columns), as sent in the Int16 count.
     *
     * @return the field count, 0 for a statement that returns an empty row shape
     */
    public int fieldCount() {
        return count;
    }

    /**
     * The field's name, as the column label in the query.
     *
     * @param field zero-based field index
     * @return the name, decoded as UTF-8
     * @throws IndexOutOfBoundsException if there is no such field
     */
    public String name(int field) {
        check(field);
        return Wire.utf8(buf, nameStart[field], nameEnd[field]);
    }

    /**
     * OID of the table the field comes from.
     *
     * @param field zero-based field index
     * @return the table's {@code pg_class} OID, or 0 if the field is not a plain table column
     * @throws IndexOutOfBoundsException if there is no such field
     */
    public int tableOid(int field) {
        return buf.getInt(fixed(field));
    }

    /**
     * Attribute number of the column in its table.
     *
     * @param field zero-based field index
     * @return the {@code pg_attribute.attnum} (1-based), or 0 if the field is not a plain table column
     * @throws IndexOutOfBoundsException if there is no such field
     */
    public short columnNumber(int field) {
        return buf.getShort(fixed(field) + 4);
    }

    /**
     * The field's data type.
     *
     * @param field zero-based field index
     * @return the type's {@code pg_type} OID
     * @throws IndexOutOfBoundsException if there is no such field
     */
    public int typeOid(int field) {
        return buf.getInt(fixed(field) + 6);
    }

    /**
     * The data type's size, as {@code pg_type.typlen}.
     *
     * @param field zero-based field index
     * @return the size in bytes; negative for variable-width types (-1 varlena, -2 C string)
     * @throws IndexOutOfBoundsException if there is no such field
     */
    public short typeLength(int field) {
        return buf.getShort(fixed(field) + 10);
    }

    /**
     * The type modifier, as {@code pg_attribute.atttypmod}; its meaning is type-specific.
     *
     * @param field zero-based field index
     * @return the modifier, e.g. the declared length plus 4 for {@code varchar(n)}; -1 if none
     * @throws IndexOutOfBoundsException if there is no such field
     */
    public int typeModifier(int field) {
        return buf.getInt(fixed(field) + 12);
    }

    /**
     * Format code the field's values will be sent in.
     *
     * @param field zero-based field index
     * @return 0 text, 1 binary (always 0 for a simple Query)
     * @throws IndexOutOfBoundsException if there is no such field
     */
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
