package io.pgrepl.codec.pgoutput.record;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.pgrepl.codec.pgoutput.ColumnKind;
import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.codec.pgoutput.TupleView;
import io.pgrepl.codec.value.PgValues;
import java.nio.charset.StandardCharsets;
import java.util.AbstractList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.RandomAccess;

/**
 * A copied TupleData: one {@link ColumnValue} per relation column, in relation order. Immutable.
 *
 * <p>A tuple copied from a view holds all its values in one array (one copy per tuple, not one per
 * value); {@link #get(int)} and {@link #columns()} build the {@link ColumnValue}s from it when first
 * asked. The per-column accessors ({@link #kind}, {@link #valueOffset}, {@link #valueLength},
 * {@link #array}, {@link #text}) read that array without building them.
 */
public final class Tuple {
    private static final ColumnKind[] KINDS = ColumnKind.values();

    /** Column names and types when copied from a view; null when built from a list of values. */
    private final RelationInfo relation;
    /** Byte {@code i} is column {@code i}'s kind (ordinal); the value bytes follow the kinds. */
    private final byte[] data;
    /** Per column: offset of the value in {@link #data}, then its length (unused without a value). */
    private final int[] pos;
    /** ColumnValues built so far (filled on demand; racing readers build equal values). */
    private ColumnValue[] built;
    /**
     * {@link #data} as a ByteBuf for {@link #decode}, made on first use and shared by every column:
     * the decoders read at absolute indices and never move its indices (racing readers make equal wrappers).
     */
    private ByteBuf wrapped;

    /**
     * A tuple of the given columns.
     *
     * @param columns one value per relation column, copied
     */
    public Tuple(List<ColumnValue> columns) {
        ColumnValue[] values = columns.toArray(new ColumnValue[0]);
        int n = values.length;
        int total = n;
        for (ColumnValue v : values) total += v.bytes() == null ? 0 : v.bytes().length;
        relation = null;
        data = new byte[total];
        pos = new int[2 * n];
        for (int i = 0, at = n; i < n; i++) {
            byte[] b = values[i].bytes();
            data[i] = (byte) values[i].kind().ordinal();
            if (b == null) continue;
            System.arraycopy(b, 0, data, at, b.length);
            pos[2 * i] = at;
            pos[2 * i + 1] = b.length;
            at += b.length;
        }
        built = values;
    }

    private Tuple(RelationInfo relation, byte[] data, int[] pos) {
        this.relation = relation;
        this.data = data;
        this.pos = pos;
    }

    /**
     * Copies a tuple view: kinds and value bytes into one array; names and types stay the relation's.
     * The values of a pgoutput or COPY row lie close together, so one copy of the span that holds
     * them (value lengths and kind bytes between them included) replaces one copy per value; values
     * spread further apart are copied one by one, so a copy never exceeds the value bytes by much.
     */
    static Tuple copyOf(TupleView t) {
        int n = t.columnCount();
        int[] pos = new int[2 * n]; // the values' buffer indexes first, then their offsets in data
        int first = Integer.MAX_VALUE, last = -1;
        long sum = 0;
        for (int i = 0; i < n; i++) {
            int len = t.valueLength(i);
            if (len < 0) continue;
            int at = t.valueIndex(i);
            pos[2 * i] = at;
            pos[2 * i + 1] = len;
            first = Math.min(first, at);
            last = Math.max(last, at + len);
            sum += len;
        }
        ByteBuf buf = t.buffer();
        byte[] data;
        if (last < 0) {
            data = new byte[n];
        } else if (last - first <= sum + 8L * n) {
            data = new byte[n + last - first];
            buf.getBytes(first, data, n, last - first);
            for (int i = 0; i < n; i++) {
                if (t.valueLength(i) >= 0) pos[2 * i] += n - first;
            }
        } else {
            data = new byte[Math.toIntExact(n + sum)];
            for (int i = 0, at = n; i < n; i++) {
                int len = t.valueLength(i);
                if (len < 0) continue;
                buf.getBytes(pos[2 * i], data, at, len);
                pos[2 * i] = at;
                at += len;
            }
        }
        for (int i = 0; i < n; i++) data[i] = (byte) t.kind(i).ordinal();
        return new Tuple(t.relation(), data, pos);
    }

    /**
     * The number of columns.
     *
     * @return the column count
     */
    public int size() {
        return pos.length / 2;
    }

    /**
     * All columns, in relation order (built on first use; unmodifiable).
     *
     * @return one value per column
     */
    public List<ColumnValue> columns() {
        return new Columns(this);
    }

    /**
     * Column {@code i}.
     *
     * @param i the column index, from 0
     * @return the column's value
     */
    public ColumnValue get(int i) {
        Objects.checkIndex(i, size());
        ColumnValue[] b = built;
        if (b == null) built = b = new ColumnValue[size()];
        ColumnValue v = b[i];
        if (v == null) b[i] = v = new ColumnValue(name(i), typeOid(i), kind(i), hasValue(i) ? bytes(i) : null);
        return v;
    }

    /**
     * The column named {@code name}.
     *
     * @param name the column name (exact, case-sensitive)
     * @return the column's value, or null if there is no such column
     */
    public ColumnValue get(String name) {
        for (int i = 0; i < size(); i++) if (name(i).equals(name)) return get(i);
        return null;
    }

    /**
     * Column {@code i}'s name.
     *
     * @param i the column index, from 0
     * @return the name, from the Relation message
     */
    public String name(int i) {
        return relation != null ? relation.column(Objects.checkIndex(i, size())).name() : built[i].name();
    }

    /**
     * Column {@code i}'s type OID.
     *
     * @param i the column index, from 0
     * @return the type OID, from the Relation message
     */
    public int typeOid(int i) {
        return relation != null ? relation.column(Objects.checkIndex(i, size())).typeOid() : built[i].typeOid();
    }

    /**
     * What was sent for column {@code i}: a text or binary value, NULL, unchanged TOAST, or nothing.
     *
     * @param i the column index, from 0
     * @return the column's kind
     */
    public ColumnKind kind(int i) {
        return KINDS[data[Objects.checkIndex(i, size())]];
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
     * Where column {@code i}'s bytes start in {@link #array()}.
     *
     * @param i the column index, from 0
     * @return the offset, or -1 without a value
     */
    public int valueOffset(int i) {
        return hasValue(i) ? pos[2 * i] : -1;
    }

    /**
     * How many bytes column {@code i}'s value has.
     *
     * @param i the column index, from 0
     * @return the length, or -1 without a value
     */
    public int valueLength(int i) {
        return hasValue(i) ? pos[2 * i + 1] : -1;
    }

    /**
     * The array holding every value's bytes, at {@link #valueOffset} for {@link #valueLength}; read
     * it in place to avoid copies. Don't modify it: the tuple is shared.
     *
     * @return the tuple's data array
     */
    public byte[] array() {
        return data;
    }

    /**
     * Whether column {@code i} holds the same value bytes as column {@code j} of {@code other},
     * compared in place (no copy, no text decoding); columns without a value compare equal only
     * to each other.
     *
     * @param i     the column index in this tuple
     * @param other the other tuple
     * @param j     the column index in {@code other}
     * @return true when both have no value, or the same bytes
     */
    public boolean valueEquals(int i, Tuple other, int j) {
        boolean a = hasValue(i);
        if (a != other.hasValue(j)) return false;
        if (!a) return true;
        int from = pos[2 * i];
        int otherFrom = other.pos[2 * j];
        return Arrays.equals(data, from, from + pos[2 * i + 1], other.data, otherFrom, otherFrom + other.pos[2 * j + 1]);
    }

    /**
     * A copy of column {@code i}'s bytes.
     *
     * @param i the column index, from 0
     * @return the value bytes, or null without a value
     */
    public byte[] bytes(int i) {
        return hasValue(i) ? Arrays.copyOfRange(data, pos[2 * i], pos[2 * i] + pos[2 * i + 1]) : null;
    }

    /**
     * Column {@code i}'s bytes as UTF-8 (the value in text format).
     *
     * @param i the column index, from 0
     * @return the text, or null without a value
     */
    public String text(int i) {
        return hasValue(i) ? new String(data, pos[2 * i], pos[2 * i + 1], StandardCharsets.UTF_8) : null;
    }

    /**
     * Column {@code i} as a Java object per {@link PgValues#decode}, as {@link ColumnValue#decode()}.
     *
     * @param i the column index, from 0
     * @return the typed value; null unless TEXT or BINARY
     */
    public Object decode(int i) {
        if (!hasValue(i)) return null;
        ByteBuf b = wrapped;
        if (b == null) wrapped = b = Unpooled.wrappedBuffer(data);
        return PgValues.decode(typeOid(i), kind(i) == ColumnKind.BINARY, b, pos[2 * i], pos[2 * i + 1]);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Tuple t && t.columns().equals(columns());
    }

    @Override
    public int hashCode() {
        return columns().hashCode();
    }

    @Override
    public String toString() {
        return "Tuple[columns=" + columns() + "]";
    }

    private static final class Columns extends AbstractList<ColumnValue> implements RandomAccess {
        private final Tuple tuple;

        Columns(Tuple tuple) {
            this.tuple = tuple;
        }

        @Override
        public ColumnValue get(int index) {
            return tuple.get(index);
        }

        @Override
        public int size() {
            return tuple.size();
        }
    }
}
