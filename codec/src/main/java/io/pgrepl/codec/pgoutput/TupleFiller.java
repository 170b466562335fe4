package io.pgrepl.codec.pgoutput;

import io.netty.buffer.ByteBuf;

/**
 * Fills a {@link TupleView} from a row format other than pgoutput's TupleData (a COPY row), so
 * rows read another way reach applications as the same view as streamed inserts. For decoders,
 * not applications: the view handed out stays read-only to whoever receives it.
 */
public final class TupleFiller {
    private final TupleView view = new TupleView();

    /**
     * The view this filler writes into (the same instance every time).
     *
     * @return the view
     */
    public TupleView view() {
        return view;
    }

    /**
     * Starts a row of {@code count} columns whose values lie in {@code buf}.
     *
     * @param buf      the buffer holding the row's values
     * @param relation the relation whose columns the row has
     * @param count    the number of columns in the row
     */
    public void reset(ByteBuf buf, RelationInfo relation, int count) {
        view.reset(buf, relation, false, count);
    }

    /**
     * Re-points the row at another buffer (values written there by an unescaping decoder).
     *
     * @param buf the buffer holding the values from now on
     */
    public void buffer(ByteBuf buf) {
        view.buf = buf;
    }

    /**
     * Sets column {@code i} to a value in place in the row's buffer.
     *
     * @param i      zero-based column index
     * @param binary true for a binary-format value, false for text
     * @param index  absolute index of the value's first byte
     * @param length the value's length in bytes
     */
    public void value(int i, boolean binary, int index, int length) {
        view.set(i, binary ? ColumnKind.BINARY : ColumnKind.TEXT, index, length);
    }

    /**
     * Sets column {@code i} to SQL NULL.
     *
     * @param i zero-based column index
     */
    public void nullValue(int i) {
        view.set(i, ColumnKind.NULL, 0, 0);
    }
}
