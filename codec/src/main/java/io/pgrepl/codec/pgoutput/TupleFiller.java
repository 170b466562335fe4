package io.pgrepl.codec.pgoutput;

import io.netty.buffer.ByteBuf;

/**
 * Fills a {@link TupleView} from a row format other than pgoutput's TupleData (a COPY row), so
 * rows read another way reach applications as the same view as streamed inserts. For decoders,
 * not applications: the view handed out stays read-only to whoever receives it.
 */
public final class TupleFiller {
    private final TupleView view = new TupleView();

    /** The view this filler writes into (the same instance every time). */
    public TupleView view() {
        return view;
    }

    /** Starts a row of {@code count} columns whose values lie in {@code buf}. */
    public void reset(ByteBuf buf, RelationInfo relation, int count) {
        view.reset(buf, relation, false, count);
    }

    /** Re-points the row at another buffer (values written there by an unescaping decoder). */
    public void buffer(ByteBuf buf) {
        view.buf = buf;
    }

    public void value(int i, boolean binary, int index, int length) {
        view.set(i, binary ? ColumnKind.BINARY : ColumnKind.TEXT, index, length);
    }

    public void nullValue(int i) {
        view.set(i, ColumnKind.NULL, 0, 0);
    }
}
