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

    ByteBuf buf;
    RelationInfo relation;
    boolean keyOnly;
    int count;
    byte[] kinds = new byte[16];
    int[] index = new int[16];
    int[] length = new int[16];

    void reset(ByteBuf buf, RelationInfo relation, boolean keyOnly, int count) {
        this.buf = buf;
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

    public ByteBuf buffer() {
        return buf;
    }

    public RelationInfo relation() {
        return relation;
    }

    /** True for a 'K' tuple: only the replica identity key columns carry information. */
    public boolean isKeyOnly() {
        return keyOnly;
    }

    /** Number of columns: always the relation's column count. */
    public int columnCount() {
        return count;
    }

    public ColumnInfo column(int i) {
        return relation.column(Objects.checkIndex(i, count));
    }

    public ColumnKind kind(int i) {
        return KINDS[kinds[Objects.checkIndex(i, count)]];
    }

    /** A real SQL NULL (not an unchanged TOAST value, not a non-key column of a key tuple). */
    public boolean isNull(int i) {
        return kind(i) == ColumnKind.NULL;
    }

    public boolean isUnchangedToast(int i) {
        return kind(i) == ColumnKind.UNCHANGED_TOAST;
    }

    /** False only for non-key columns of a key-only tuple. */
    public boolean isPresent(int i) {
        return kind(i) != ColumnKind.ABSENT;
    }

    /** True when bytes were sent (text or binary). */
    public boolean hasValue(int i) {
        return kind(i).hasValue();
    }

    public boolean isBinary(int i) {
        return kind(i) == ColumnKind.BINARY;
    }

    /** Absolute index of the value bytes in {@link #buffer()}, or -1 without a value. */
    public int valueIndex(int i) {
        return hasValue(i) ? index[i] : -1;
    }

    /** Length of the value bytes, or -1 without a value. */
    public int valueLength(int i) {
        return hasValue(i) ? length[i] : -1;
    }

    /** The value bytes as a slice (shares memory; no copy, no retain). */
    public ByteBuf value(int i) {
        requireValue(i);
        return buf.slice(index[i], length[i]);
    }

    /** A copy of the value bytes. */
    public byte[] bytes(int i) {
        requireValue(i);
        return ByteBufUtil.getBytes(buf, index[i], length[i]);
    }

    /** The value bytes decoded as UTF-8: the text form for text columns. */
    public String text(int i) {
        requireValue(i);
        return buf.toString(index[i], length[i], StandardCharsets.UTF_8);
    }

    public boolean bool(int i) {
        requireValue(i);
        return PgValues.bool(buf, index[i], length[i], kinds[i] == ColumnKind.BINARY.ordinal());
    }

    public int int4(int i) {
        requireValue(i);
        return PgValues.int4(buf, index[i], length[i], kinds[i] == ColumnKind.BINARY.ordinal());
    }

    /** int2, int4, int8 or oid column as a long. */
    public long int8(int i) {
        requireValue(i);
        return PgValues.int8(buf, index[i], length[i], kinds[i] == ColumnKind.BINARY.ordinal());
    }

    public double float8(int i) {
        requireValue(i);
        return PgValues.float8(buf, index[i], length[i], kinds[i] == ColumnKind.BINARY.ordinal());
    }

    /**
     * The value as a Java object chosen by the column's type OID (see {@link PgValues#decode}),
     * null for SQL NULL. Throws IllegalStateException for unchanged-TOAST and absent columns:
     * they have no value, and must not be mistaken for NULL.
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
