package io.pgrepl.codec.copy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.codec.pgoutput.TupleFiller;

/**
 * COPY's text format: one row per CopyData, columns separated by tabs, ended by a newline,
 * {@code \N} for NULL. Values without a backslash are handed out in place; a row holding one is
 * unescaped once into a scratch buffer owned by this decoder (reused, grown only for larger rows),
 * so its values equal the output function's text, as pgoutput sends it.
 */
final class CopyTextRows {
    private static final String NAME = "CopyData";
    private final TupleFiller filler;
    private ByteBuf scratch = Unpooled.buffer(256);

    CopyTextRows(TupleFiller filler) {
        this.filler = filler;
    }

    int decode(ByteBuf buf, RelationInfo relation, CopyOutDecoder.RowHandler handler) {
        int start = buf.readerIndex();
        int end = buf.writerIndex();
        if (end == start || buf.getByte(end - 1) != '\n') {
            throw new MalformedMessageException(NAME, end - start, "text row does not end with a newline");
        }
        end--;
        int count = relation.columnCount();
        if (buf.indexOf(start, end, (byte) '\n') >= 0) {
            throw new MalformedMessageException(NAME, 0, "more than one text row in one CopyData");
        }
        if (count == 0) {
            if (end != start) throw new MalformedMessageException(NAME, 0, "values for a relation without columns");
            filler.reset(buf, relation, 0);
        } else if (buf.indexOf(start, end, (byte) '\\') < 0) {
            inPlace(buf, start, end, relation, count);
        } else {
            unescaped(buf, start, end, relation, count);
        }
        handler.onRow(filler.view());
        return 1;
    }

    private void inPlace(ByteBuf buf, int start, int end, RelationInfo relation, int count) {
        filler.reset(buf, relation, count);
        int from = start;
        for (int i = 0; i < count; i++) {
            int tab = fieldEnd(buf, from, end, i, count, start);
            filler.value(i, false, from, tab - from);
            from = tab + 1;
        }
    }

    /** Where field {@code i} (of {@code count}) that starts at {@code from} ends: its tab, or the row's end for the last. */
    private static int fieldEnd(ByteBuf buf, int from, int end, int i, int count, int start) {
        int tab = buf.indexOf(from, end, (byte) '\t');
        if (i == count - 1) {
            if (tab >= 0) throw fieldCount(count + 1, count, tab - start);
            return end;
        }
        if (tab < 0) throw fieldCount(i + 1, count, from - start);
        return tab;
    }

    /** The row has a backslash: copy its fields unescaped into the scratch buffer. */
    private void unescaped(ByteBuf buf, int start, int end, RelationInfo relation, int count) {
        ByteBuf out = scratch;
        out.clear();
        out.ensureWritable(end - start);
        filler.reset(out, relation, count);
        int from = start;
        for (int i = 0; i < count; i++) {
            int tab = fieldEnd(buf, from, end, i, count, start);
            if (tab - from == 2 && buf.getByte(from) == '\\' && buf.getByte(from + 1) == 'N') {
                filler.nullValue(i);
            } else {
                int at = out.writerIndex();
                unescape(buf, from, tab, out, start);
                filler.value(i, false, at, out.writerIndex() - at);
            }
            from = tab + 1;
        }
    }

    /** COPY FROM's escape rules (the superset of what COPY TO writes: \\ \b \f \n \r \t \v). */
    private static void unescape(ByteBuf in, int from, int to, ByteBuf out, int base) {
        int i = from;
        while (i < to) {
            byte b = in.getByte(i++);
            if (b != '\\') {
                out.writeByte(b);
                continue;
            }
            if (i == to) throw new MalformedMessageException(NAME, i - base, "backslash at the end of a value");
            byte c = in.getByte(i++);
            switch (c) {
                case 'b' -> out.writeByte('\b');
                case 'f' -> out.writeByte('\f');
                case 'n' -> out.writeByte('\n');
                case 'r' -> out.writeByte('\r');
                case 't' -> out.writeByte('\t');
                case 'v' -> out.writeByte(0x0B);
                case 'x' -> {
                    int v = 0;
                    int digits = 0;
                    while (digits < 2 && i < to && hex(in.getByte(i)) >= 0) {
                        v = v * 16 + hex(in.getByte(i++));
                        digits++;
                    }
                    if (digits == 0) out.writeByte('x');
                    else out.writeByte(v);
                }
                case 'N' -> throw new MalformedMessageException(NAME, i - base, "\\N inside a value");
                default -> {
                    if (c >= '0' && c <= '7') {
                        int v = c - '0';
                        for (int d = 0; d < 2 && i < to && in.getByte(i) >= '0' && in.getByte(i) <= '7'; d++) {
                            v = v * 8 + in.getByte(i++) - '0';
                        }
                        out.writeByte(v);
                    } else {
                        out.writeByte(c);
                    }
                }
            }
        }
    }

    private static int hex(byte b) {
        if (b >= '0' && b <= '9') return b - '0';
        if (b >= 'a' && b <= 'f') return b - 'a' + 10;
        if (b >= 'A' && b <= 'F') return b - 'A' + 10;
        return -1;
    }

    private static MalformedMessageException fieldCount(int seen, int expected, int offset) {
        return new MalformedMessageException(NAME, offset,
                "text row has " + (seen > expected ? "more than " + expected : "only " + seen) + " of " + expected + " columns");
    }
}
