package io.pgrepl.codec.pgoutput;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.pgrepl.codec.value.PgValues;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Flyweight over one TupleData part: per column a {@link ColumnKind} and, for text/binary
 * values, the absolute index and length of the value bytes in {@link #buffer()}. Column
 * {@code i} is column {@code i} of {@link #relation()}. Valid only during the callback.
 *
 * <p>The allocation-free path is {@link #kind}, {@link #valueIndex}, {@link #valueLength} and
 * the primitive accessors ({@link #int4}, {@link #int8}, {@link #bool}, {@link #float8});
 * {@link #value}, {@link #text} and {@link #decode} allocate.
 */
public final class TupleView {
    private static final ColumnKind[] KINDS = ColumnKind.values();
    private static final byte TEXT = (byte) ColumnKind.TEXT.ordinal();

    ByteBuf buf;
    /** The buffer's backing array, or null: integers in text are read from it directly. */
    private byte[] array;
    private int arrayOffset;
    RelationInfo relation;
    boolean keyOnly;
    int count;
    byte[] kinds = new byte[16];
    int[] index = new int[16];
    int[] length = new int[16];

    void reset(ByteBuf buf, RelationInfo relation, boolean keyOnly, int count) {
        this.buf = buf;
        if (buf.hasArray()) {
            array = buf.array();
            arrayOffset = buf.arrayOffset();
        } else {
            array = null;
        }
        this.relation = relation;
        this.keyOnly = keyOnly;
        this.count = count;
        if (kinds.length < count) {
            int cap = Math.max(count, kinds.length * 2);
            kinds = new byte[cap];
            index = new int[cap];
            length = new int[cap];
        }
    }

    void set(int i, ColumnKind kind, int valueIndex, int valueLength) {
        kinds[i] = (byte) kind.ordinal();
        index[i] = valueIndex;
        length[i] = valueLength;
    }

    /**
     * The buffer the values are read from (the receive buffer; valid during the callback only).
     *
     * @return the buffer that {@link #valueIndex} indexes
     */
    public ByteBuf buffer() {
        return buf;
    }

    /**
     * The table this tuple belongs to, as announced by the last Relation message.
     *
     * @return the relation; column {@code i} of the tuple is its column {@code i}
     */
    public RelationInfo relation() {
        return relation;
    }

    /**
     * Whether this is a 'K' tuple: only the replica identity key columns carry information.
     *
     * @return true for a key-only tuple
     */
    public boolean isKeyOnly() {
        return keyOnly;
    }

    /**
     * The number of columns: always the relation's column count.
     *
     * @return the column count
     */
    public int columnCount() {
        return count;
    }

    /**
     * Name, type and flags of column {@code i}.
     *
     * @param i the column index, from 0
     * @return the relation's column {@code i}
     */
    public ColumnInfo column(int i) {
        return relation.column(Objects.checkIndex(i, count));
    }

    /**
     * What was sent for column {@code i}: a text or binary value, NULL, unchanged TOAST, or nothing.
     *
     * @param i the column index, from 0
     * @return the column's kind
     */
    public ColumnKind kind(int i) {
        return KINDS[kinds[Objects.checkIndex(i, count)]];
    }

    /**
     * Whether column {@code i} is a real SQL NULL (not an unchanged TOAST value, not a non-key
     * column of a key tuple).
     *
     * @param i the column index, from 0
     * @return true for SQL NULL
     */
    public boolean isNull(int i) {
        return kind(i) == ColumnKind.NULL;
    }

    /**
     * Whether column {@code i} is a TOASTed value that the UPDATE did not change (its value is not sent).
     *
     * @param i the column index, from 0
     * @return true for an unchanged TOAST value
     */
    public boolean isUnchangedToast(int i) {
        return kind(i) == ColumnKind.UNCHANGED_TOAST;
    }

    /**
     * Whether column {@code i} is part of this tuple: false only for non-key columns of a key-only tuple.
     *
     * @param i the column index, from 0
     * @return false for an absent column
     */
    public boolean isPresent(int i) {
        return kind(i) != ColumnKind.ABSENT;
    }

    /**
     * Whether bytes were sent for column {@code i} (text or binary).
     *
     * @param i the column index, from 0
     * @return true when the column has a value
     */
    public boolean hasValue(int i) {
        return kind(i).hasValue();
    }

    /**
     * Whether column {@code i} was sent in binary format (the {@code binary} option).
     *
     * @param i the column index, from 0
     * @return true for a binary value
     */
    public boolean isBinary(int i) {
        return kind(i) == ColumnKind.BINARY;
    }

    /**
     * Where column {@code i}'s bytes start.
     *
     * @param i the column index, from 0
     * @return the absolute index of the value bytes in {@link #buffer()}, or -1 without a value
     */
    public int valueIndex(int i) {
        return hasValue(i) ? index[i] : -1;
    }

    /**
     * How many bytes column {@code i}'s value has.
     *
     * @param i the column index, from 0
     * @return the length of the value bytes, or -1 without a value
     */
    public int valueLength(int i) {
        return hasValue(i) ? length[i] : -1;
    }

    /**
     * Column {@code i}'s bytes as a slice (shares memory; no copy, no retain).
     *
     * @param i the column index, from 0
     * @return a slice of {@link #buffer()}
     * @throws IllegalStateException if the column has no value
     */
    public ByteBuf value(int i) {
        requireValue(i);
        return buf.slice(index[i], length[i]);
    }

    /**
     * A copy of column {@code i}'s bytes.
     *
     * @param i the column index, from 0
     * @return the value bytes
     * @throws IllegalStateException if the column has no value
     */
    public byte[] bytes(int i) {
        requireValue(i);
        return ByteBufUtil.getBytes(buf, index[i], length[i]);
    }

    /**
     * Column {@code i}'s bytes decoded as UTF-8: the value's text form for a text-format column.
     *
     * @param i the column index, from 0
     * @return the bytes as a string
     * @throws IllegalStateException if the column has no value
     */
    public String text(int i) {
        requireValue(i);
        return buf.toString(index[i], length[i], StandardCharsets.UTF_8);
    }

    /**
     * Column {@code i} as a bool, without allocating.
     *
     * @param i the column index, from 0
     * @return the value
     * @throws IllegalStateException if the column has no value
     */
    public boolean bool(int i) {
        requireValue(i);
        return PgValues.bool(buf, index[i], length[i], kinds[i] == ColumnKind.BINARY.ordinal());
    }

    /**
     * Column {@code i} (int2 or int4) as an int, without allocating.
     *
     * @param i the column index, from 0
     * @return the value
     * @throws IllegalStateException if the column has no value
     */
    public int int4(int i) {
        byte[] a = array;
        if (a != null && kinds[Objects.checkIndex(i, count)] == TEXT) {
            long v = TextDigits.parse(a, arrayOffset + index[i], length[i], TextDigits.INT4_DIGITS);
            if (v != TextDigits.NOT_FAST) return (int) v;
        }
        return int4Checked(i);
    }

    /** Every format, every error: the path the fast one leaves to. */
    private int int4Checked(int i) {
        requireValue(i);
        return PgValues.int4(buf, index[i], length[i], kinds[i] == ColumnKind.BINARY.ordinal());
    }

    /**
     * Column {@code i} (int2, int4, int8 or oid) as a long, without allocating.
     *
     * @param i the column index, from 0
     * @return the value
     * @throws IllegalStateException if the column has no value
     */
    public long int8(int i) {
        byte[] a = array;
        if (a != null && kinds[Objects.checkIndex(i, count)] == TEXT) {
            long v = TextDigits.parse(a, arrayOffset + index[i], length[i], TextDigits.INT8_DIGITS);
            if (v != TextDigits.NOT_FAST) return v;
        }
        return int8Checked(i);
    }

    private long int8Checked(int i) {
        requireValue(i);
        return PgValues.int8(buf, index[i], length[i], kinds[i] == ColumnKind.BINARY.ordinal());
    }

    /**
     * Column {@code i} (float4 or float8) as a double, without allocating.
     *
     * @param i the column index, from 0
     * @return the value
     * @throws IllegalStateException if the column has no value
     */
    public double float8(int i) {
        requireValue(i);
        return PgValues.float8(buf, index[i], length[i], kinds[i] == ColumnKind.BINARY.ordinal());
    }

    /**
     * The value as a Java object chosen by the column's type OID (see {@link PgValues#decode}),
     * null for SQL NULL. Throws IllegalStateException for unchanged-TOAST and absent columns:
     * they have no value, and must not be mistaken for NULL.
     *
     * @param i the column index, from 0
     * @return the typed value, or null for SQL NULL
     */
    public Object decode(int i) {
        ColumnKind k = kind(i);
        if (k == ColumnKind.NULL) return null;
        requireValue(i);
        return PgValues.decode(relation.column(i).typeOid(), k == ColumnKind.BINARY, buf, index[i], length[i]);
    }

    private void requireValue(int i) {
        ColumnKind k = kind(i);
        if (!k.hasValue()) {
            throw new IllegalStateException("column " + i + " (" + relation.column(i).name() + ") has no value: " + k);
        }
    }
}
