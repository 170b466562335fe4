package io.pgrepl.codec.pgoutput;

import static io.pgrepl.codec.pgoutput.Fixtures.text;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.pgrepl.codec.value.MalformedValueException;
import io.pgrepl.codec.pgoutput.record.ColumnValue;
import io.pgrepl.codec.pgoutput.record.Insert;
import io.pgrepl.codec.pgoutput.record.Relation;
import io.pgrepl.codec.pgoutput.record.Tuple;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link TupleView#int4} and {@link TupleView#int8} on text values, around the edges of the
 * array fast path (9 and 18 digits) and the checked path behind it, for every buffer shape the
 * tuple can lie in: the same answers and the same errors whichever path reads them.
 */
class TupleViewIntegersTest {
    /** How the decoded message lies in memory. */
    enum Shape {
        /** a heap buffer from index 0 */
        HEAP,
        /** a slice of a heap buffer: the array offset is not 0 */
        HEAP_SLICE,
        /** no array: the checked path only */
        DIRECT
    }

    private static final int REL = 4242;

    /**
     * The slice starts 8 bytes into its array: one 3-digit column (kind byte, length word, value).
     * With columns of 3 digits, a read that forgot the array offset would land on the previous
     * column's digits and return a wrong number instead of failing over to the checked path.
     */
    private static final int SLICE_OFFSET = 1 + 4 + 3;

    private static ByteBuf lay(ByteBuf msg, Shape shape) {
        return switch (shape) {
            case HEAP -> msg;
            case HEAP_SLICE -> {
                int n = msg.readableBytes();
                ByteBuf b = Unpooled.buffer().writeBytes("99999999".getBytes(java.nio.charset.StandardCharsets.US_ASCII)).writeBytes(msg);
                yield b.slice(SLICE_OFFSET, n);
            }
            case DIRECT -> Unpooled.directBuffer().writeBytes(msg);
        };
    }

    /** Decodes one Insert of the given text values and runs {@code check} on its tuple; fails if it never ran. */
    private static void withTuple(Shape shape, List<String> values, Consumer<TupleView> check) {
        List<ColumnInfo> cols = new ArrayList<>();
        List<ColumnValue> vals = new ArrayList<>();
        for (int i = 0; i < values.size(); i++) {
            cols.add(new ColumnInfo(0, "c" + i, 20, -1));
            vals.add(text("c" + i, 20, values.get(i)));
        }
        PgOutputDecoder decoder = new PgOutputDecoder();
        int[] ran = {0};
        PgOutputHandler h = new PgOutputHandler() {
            @Override
            public void onInsert(InsertMessage m) {
                ran[0]++;
                check.accept(m.newTuple());
            }
        };
        decoder.decode(PgOutputTestEncoder.encode(new Relation(0, REL, "public", "t", 'd', cols)), h);
        ByteBuf msg = lay(PgOutputTestEncoder.encode(new Insert(0, REL, new Tuple(vals))), shape);
        try {
            decoder.decode(msg, h);
        } finally {
            msg.release();
        }
        assertEquals(1, ran[0], "onInsert ran");
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void int4Values(Shape shape) {
        List<String> in = List.of("0", "-0", "7", "-7", "007", "999999999", "-999999999", "1000000000",
                "2147483647", "-2147483648", "+12");
        int[] expected = {0, 0, 7, -7, 7, 999_999_999, -999_999_999, 1_000_000_000, Integer.MAX_VALUE, Integer.MIN_VALUE, 12};
        withTuple(shape, in, t -> {
            for (int i = 0; i < expected.length; i++) assertEquals(expected[i], t.int4(i), in.get(i));
        });
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void columnsOfEqualLengthEachReadTheirOwnDigits(Shape shape) {
        withTuple(shape, List.of("111", "222", "-33", "444"), t -> {
            assertEquals(111, t.int4(0));
            assertEquals(222, t.int4(1));
            assertEquals(-33L, t.int8(2));
            assertEquals(444L, t.int8(3));
        });
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void int8Values(Shape shape) {
        List<String> in = List.of("42", "-42", "999999999999999999", "-999999999999999999", "1000000000000000000",
                "9223372036854775807", "-9223372036854775808", "4294967295");
        long[] expected = {42, -42, 999_999_999_999_999_999L, -999_999_999_999_999_999L, 1_000_000_000_000_000_000L,
                Long.MAX_VALUE, Long.MIN_VALUE, 4_294_967_295L};
        withTuple(shape, in, t -> {
            for (int i = 0; i < expected.length; i++) assertEquals(expected[i], t.int8(i), in.get(i));
        });
    }

    @ParameterizedTest
    @EnumSource(Shape.class)
    void malformedTextFailsTypedOnBothPaths(Shape shape) {
        List<String> in = List.of("", "-", "12a", "1 ", " 1", "2147483648", "-2147483649", "9223372036854775808",
                "--1", "1-", "٣");
        withTuple(shape, in, t -> {
            for (int i = 0; i < 5; i++) {
                int c = i;
                assertThrows(MalformedValueException.class, () -> t.int4(c), in.get(c));
                assertThrows(MalformedValueException.class, () -> t.int8(c), in.get(c));
            }
            assertThrows(MalformedValueException.class, () -> t.int4(5), "int4 overflow");
            assertThrows(MalformedValueException.class, () -> t.int4(6), "int4 underflow");
            assertEquals(2_147_483_648L, t.int8(5));
            assertThrows(MalformedValueException.class, () -> t.int8(7), "int8 overflow");
            for (int i = 8; i < in.size(); i++) {
                int c = i;
                assertThrows(MalformedValueException.class, () -> t.int4(c), in.get(c));
                assertThrows(MalformedValueException.class, () -> t.int8(c), in.get(c));
            }
            assertThrows(IndexOutOfBoundsException.class, () -> t.int4(in.size()));
            assertThrows(IndexOutOfBoundsException.class, () -> t.int8(-1));
        });
    }
}
