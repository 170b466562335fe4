package io.pgrepl.codec.copy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.pgoutput.ColumnInfo;
import io.pgrepl.codec.pgoutput.ColumnKind;
import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.codec.pgoutput.TupleView;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Hand-built COPY frames (escapes, NULLs, header/trailer, hostile lengths). What real servers
 * send, and that it equals pgoutput's values, is checked in the integration tests.
 */
class CopyOutDecoderTest {
    private static RelationInfo relation(int columns) {
        List<ColumnInfo> cols = new ArrayList<>();
        for (int i = 0; i < columns; i++) cols.add(new ColumnInfo(0, "c" + i, 25, -1));
        return new RelationInfo(1, "public", "t", 'd', cols);
    }

    private static ByteBuf response(int format, int columns) {
        ByteBuf b = Unpooled.buffer().writeByte(format).writeShort(columns);
        for (int i = 0; i < columns; i++) b.writeShort(format);
        return b;
    }

    private static ByteBuf text(String s) {
        return Unpooled.wrappedBuffer(s.getBytes(StandardCharsets.UTF_8));
    }

    /** Each row as a list of values (null for NULL), copied during the callback. */
    private static List<List<String>> rows(CopyOutDecoder d, ByteBuf... frames) {
        List<List<String>> out = new ArrayList<>();
        for (ByteBuf f : frames) {
            d.decode(f, row -> {
                List<String> r = new ArrayList<>();
                for (int i = 0; i < row.columnCount(); i++) {
                    r.add(row.kind(i) == ColumnKind.NULL ? null : row.text(i));
                }
                out.add(r);
            });
        }
        return out;
    }

    @Test
    void textRowsInPlaceUnescapedAndNull() {
        CopyOutDecoder d = new CopyOutDecoder();
        d.start(response(0, 3), relation(3), false);
        ByteBuf plain = text("1\tabc\t\n");
        List<List<String>> got = rows(d, plain, text("2\t\\N\ta\\tb\\nc\\\\d\\re\\bf\\fg\\vh\\101\\x41\n"));
        assertEquals(List.of("1", "abc", ""), got.get(0));
        assertEquals(java.util.Arrays.asList("2", null, "a\tb\nc\\d\re\bf\fg\u000Bh" + "AA"), got.get(1));
        assertEquals(2, d.finish());
    }

    @Test
    void inPlaceValuesPointIntoTheFrame() {
        CopyOutDecoder d = new CopyOutDecoder();
        d.start(response(0, 2), relation(2), false);
        ByteBuf frame = text("xy\tz\n");
        int[] seen = new int[1];
        d.decode(frame, row -> {
            assertTrue(row.buffer() == frame, "no copy for a row without escapes");
            assertEquals(0, row.valueIndex(0));
            assertEquals(3, row.valueIndex(1));
            seen[0]++;
        });
        assertEquals(1, seen[0]);
    }

    @Test
    void relationWithoutColumns() {
        CopyOutDecoder d = new CopyOutDecoder();
        d.start(response(0, 0), relation(0), false);
        assertEquals(List.of(List.of()), rows(d, text("\n")));
        assertThrows(MalformedMessageException.class, () -> rows(d, text("x\n")));
    }

    @Test
    void malformedTextRows() {
        CopyOutDecoder d = new CopyOutDecoder();
        d.start(response(0, 2), relation(2), false);
        assertThrows(MalformedMessageException.class, () -> rows(d, text("1\t2")), "no newline");
        assertThrows(MalformedMessageException.class, () -> rows(d, text("1\n")), "too few");
        assertThrows(MalformedMessageException.class, () -> rows(d, text("1\t2\t3\n")), "too many");
        assertThrows(MalformedMessageException.class, () -> rows(d, text("1\t2\\\n")), "dangling backslash");
        assertThrows(MalformedMessageException.class, () -> rows(d, text("1\n2\t3\n")), "two rows");
    }

    @Test
    void responseMustMatchTheRequest() {
        CopyOutDecoder d = new CopyOutDecoder();
        assertThrows(MalformedMessageException.class, () -> d.start(response(1, 2), relation(2), false));
        assertThrows(MalformedMessageException.class, () -> d.start(response(0, 3), relation(2), false));
        assertThrows(MalformedMessageException.class, () -> d.start(Unpooled.buffer().writeByte(0).writeShort(5), relation(5), false));
    }

    private static ByteBuf header() {
        return Unpooled.buffer().writeBytes(new byte[] {'P', 'G', 'C', 'O', 'P', 'Y', '\n', (byte) 0xFF, '\r', '\n', 0})
                .writeInt(0).writeInt(0);
    }

    @Test
    void binaryHeaderWithFirstRowThenTrailer() {
        CopyOutDecoder d = new CopyOutDecoder();
        d.start(response(1, 2), relation(2), true);
        ByteBuf first = header().writeShort(2).writeInt(3).writeBytes(new byte[] {1, 2, 3}).writeInt(-1);
        ByteBuf second = Unpooled.buffer().writeShort(2).writeInt(0).writeInt(1).writeByte(9);
        List<Object[]> got = new ArrayList<>();
        for (ByteBuf f : new ByteBuf[] {first, second, Unpooled.buffer().writeShort(-1)}) {
            d.decode(f, row -> got.add(new Object[] {row.kind(0), row.hasValue(0) ? row.bytes(0) : null, row.kind(1),
                    row.hasValue(1) ? row.bytes(1) : null}));
        }
        assertEquals(2, got.size());
        assertEquals(ColumnKind.BINARY, got.get(0)[0]);
        assertArrayEquals(new byte[] {1, 2, 3}, (byte[]) got.get(0)[1]);
        assertEquals(ColumnKind.NULL, got.get(0)[2]);
        assertArrayEquals(new byte[0], (byte[]) got.get(1)[1]);
        assertArrayEquals(new byte[] {9}, (byte[]) got.get(1)[3]);
        assertEquals(2, d.finish());
    }

    @Test
    void binaryHostileInput() {
        CopyOutDecoder d = new CopyOutDecoder();
        d.start(response(1, 1), relation(1), true);
        assertThrows(MalformedMessageException.class,
                () -> d.decode(header().writeShort(1).writeInt(Integer.MAX_VALUE).writeByte(1), r -> {}), "length beyond the frame");
        d.start(response(1, 1), relation(1), true);
        assertThrows(MalformedMessageException.class, () -> d.decode(header().writeShort(1).writeInt(-5), r -> {}));
        d.start(response(1, 1), relation(1), true);
        assertThrows(MalformedMessageException.class, () -> d.decode(header().writeShort(2), r -> {}), "field count");
        d.start(response(1, 1), relation(1), true);
        assertThrows(MalformedMessageException.class, () -> d.decode(Unpooled.buffer().writeBytes("PGCOPY\n\u00ffx\n\0".getBytes(StandardCharsets.ISO_8859_1)).writeInt(0).writeInt(0), r -> {}));
        d.start(response(1, 1), relation(1), true);
        d.decode(header(), r -> {});
        assertThrows(MalformedMessageException.class, d::finish, "no trailer");
        d.start(response(1, 1), relation(1), true);
        assertThrows(MalformedMessageException.class, () -> d.decode(header().writeInt(1 << 16).writeInt(0), r -> {}));
    }
}
