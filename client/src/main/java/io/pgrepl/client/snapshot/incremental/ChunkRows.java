package io.pgrepl.client.snapshot.incremental;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.pgrepl.codec.copy.CopyOutDecoder;
import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.codec.pgoutput.TupleView;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One chunk's rows, held between the read and the high watermark: the COPY text lines (cut to the
 * published columns) back to back in one heap buffer, each row's match key (the columns the
 * stream's changes are matched by, {@link KeyedTable#matchColumnIndexes}) as one string (the
 * columns' texts joined by NUL, a byte no PostgreSQL text holds) where it was taken at the read
 * (only when the line had to be cut), and the last row's walked key, the next chunk's lower bound.
 * Emitting decodes each kept line again into a {@link TupleView}, so a row is stored once, as the
 * server sent it.
 */
final class ChunkRows {
    /** Separates key column texts in a key string. */
    static final char KEY_SEPARATOR = '\0';

    private final ByteBuf lines = Unpooled.buffer(64 * 1024);
    private int[] ends = new int[256];
    private String[] keys = new String[256];
    private int count;
    private List<String> lastKey;

    /** Appends one line (ending with its newline, else {@code newline} adds one) and its key, or null. */
    void add(ByteBuf line, int from, int length, boolean newline, String key) {
        if (count == ends.length) {
            ends = Arrays.copyOf(ends, count * 2);
            keys = Arrays.copyOf(keys, count * 2);
        }
        lines.writeBytes(line, from, length);
        if (newline) lines.writeByte('\n');
        ends[count] = lines.writerIndex();
        keys[count++] = key;
    }

    /** {@return the bytes held (lines, key strings roughly)} */
    long bytes() {
        return lines.capacity() + 24L * count;
    }

    int count() {
        return count;
    }

    /** {@return row {@code i}'s match key string, or null if it was stored without one (see {@link ChunkCopyExchange})} */
    String key(int i) {
        return keys[i];
    }

    void key(int i, String key) {
        keys[i] = key;
    }

    /** {@return the last row's walked key texts, the next chunk's lower bound; null when empty} */
    List<String> lastKey() {
        return count == 0 ? null : lastKey;
    }

    /** Sets the last row's walked key texts (none of them null). */
    void lastKey(List<String> texts) {
        lastKey = texts;
    }

    /**
     * Decodes row {@code i} and hands it to {@code handler}; the view is valid during the call only.
     * Moves the buffer's indexes onto the row instead of slicing it (no allocation per row): rows
     * are emitted only once the chunk was read, so nothing is appended any more.
     */
    void emit(int i, CopyOutDecoder decoder, CopyOutDecoder.RowHandler handler) {
        int from = i == 0 ? 0 : ends[i - 1];
        lines.setIndex(from, ends[i]);
        decoder.decode(lines, handler);
    }

    void release() {
        lines.release();
    }

    /** A text-format CopyOutResponse for {@code relation}, to start a decoder over the stored lines. */
    static ByteBuf copyOutResponse(RelationInfo relation) {
        int n = relation.columnCount();
        ByteBuf b = Unpooled.buffer(3 + 2 * n).writeByte(0).writeShort(n);
        for (int i = 0; i < n; i++) b.writeShort(0);
        return b;
    }

    /** Joins key texts into the key string the touch log uses. */
    static String key(List<String> texts) {
        if (texts.size() == 1) return texts.get(0);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < texts.size(); i++) {
            if (i > 0) b.append(KEY_SEPARATOR);
            b.append(texts.get(i));
        }
        return b.toString();
    }

    /** The key string of a tuple whose key columns are at {@code idx}; null if one is absent (unchanged TOAST, NULL). */
    static String key(TupleView t, int[] idx) {
        if (idx.length == 1) return t.hasValue(idx[0]) ? t.text(idx[0]) : null;
        StringBuilder b = new StringBuilder();
        for (int k = 0; k < idx.length; k++) {
            if (!t.hasValue(idx[k])) return null;
            if (k > 0) b.append(KEY_SEPARATOR);
            b.append(t.text(idx[k]));
        }
        return b.toString();
    }
}
