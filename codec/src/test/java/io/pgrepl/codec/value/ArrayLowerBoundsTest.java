package io.pgrepl.codec.value;

import static io.pgrepl.codec.value.PgValuesTest.hex;
import static io.pgrepl.codec.value.PgValuesTest.txt;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Array lower bounds (array_out's {@code [lo:hi]=} decoration, array_send's per-dimension lower
 * bound) and the far end of timestamptz. Live-server renderings of the same values are checked
 * in integration-tests' TypedValuesTest.
 */
class ArrayLowerBoundsTest {

    @Test
    void textDecoration() {
        assertArrayEquals(new int[] {0}, PgValues.arrayLowerBounds(PgType.INT4_ARRAY, false, txt("[0:1]={1,2}")));
        assertArrayEquals(new int[] {-3, 2}, PgValues.arrayLowerBounds(PgType.INT4_ARRAY, false, txt("[-3:-2][2:2]={{1},{2}}")));
        assertArrayEquals(new int[] {1, 1}, PgValues.arrayLowerBounds(PgType.INT4_ARRAY, false, txt("{{1},{2}}")));
        assertArrayEquals(new int[0], PgValues.arrayLowerBounds(PgType.INT4_ARRAY, false, txt("{}")));
        // The list itself stays 0-based whatever the lower bound.
        assertEquals(List.of(1, 2), PgValues.decode(PgType.INT4_ARRAY, false, txt("[0:1]={1,2}")));
    }

    @Test
    void binaryHeader() {
        // ndim 1, no nulls, int4, size 2, lower bound 0, elements 1 and 2.
        String bin = "00000001 00000000 00000017 00000002 00000000 00000004 00000001 00000004 00000002";
        assertArrayEquals(new int[] {0}, PgValues.arrayLowerBounds(PgType.INT4_ARRAY, true, hex(bin)));
        assertArrayEquals(new int[0], PgValues.arrayLowerBounds(PgType.INT4_ARRAY, true, hex("00000000 00000000 00000017")));
    }

    @Test
    void malformedDecorationIsATypedError() {
        for (String bad : new String[] {"[0:1{1,2}", "[x:1]={1}", "[0:1]", "[0:1]{1}", "", "1", "[99999999999:1]={1}"}) {
            assertThrows(MalformedValueException.class, () -> PgValues.arrayLowerBounds(PgType.INT4_ARRAY, false, txt(bad)), bad);
        }
        assertThrows(MalformedValueException.class, () -> PgValues.arrayLowerBounds(PgType.INT4_ARRAY, true, hex("00000001 00000000 00000017")));
        assertThrows(MalformedValueException.class, () -> PgValues.arrayLowerBounds(PgType.INT4_ARRAY, true, hex("00000007 00000000 00000017")));
    }

    @Test
    void timestamptzUpToTheServersMaximum() {
        // 294276-12-31 23:59:59.999999+00, PostgreSQL's largest timestamptz (timestamptz_send of it).
        Instant max = Instant.parse("+294276-12-31T23:59:59.999999Z");
        assertEquals(max, PgValues.decode(PgType.TIMESTAMPTZ, true, hex("7fffff5bb3b29fff")));
        assertEquals(max, PgValues.decode(PgType.TIMESTAMPTZ, false, txt("294276-12-31 23:59:59.999999+00")));
    }
}
