package io.pgrepl.codec.value;

import static org.junit.jupiter.api.Assertions.*;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.pgrepl.codec.MalformedMessageException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Expected values are the server's documented renderings (text: DateStyle ISO, IntervalStyle
 * postgres; binary: the typsend formats), written out by hand. Captures from live servers are
 * added separately as golden vectors.
 */
class PgValuesTest {
    static ByteBuf hex(String hex) {
        String h = hex.replaceAll("\\s+", "");
        byte[] b = new byte[h.length() / 2];
        for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
        return Unpooled.wrappedBuffer(b);
    }

    static ByteBuf txt(String s) {
        return Unpooled.wrappedBuffer(s.getBytes(StandardCharsets.UTF_8));
    }

    static Object text(int oid, String s) {
        return PgValues.decode(oid, false, txt(s));
    }

    static Object bin(int oid, String hex) {
        return PgValues.decode(oid, true, hex(hex));
    }

    @Test
    void booleansAndIntegers() {
        assertEquals(true, text(PgType.BOOL, "t"));
        assertEquals(false, bin(PgType.BOOL, "00"));
        assertEquals((short) -32768, text(PgType.INT2, "-32768"));
        assertEquals(Integer.MIN_VALUE, text(PgType.INT4, "-2147483648"));
        assertEquals(Long.MIN_VALUE, text(PgType.INT8, "-9223372036854775808"));
        assertEquals(Long.MAX_VALUE, text(PgType.INT8, "9223372036854775807"));
        assertEquals(0xFFFFFFFFL, bin(PgType.OID, "FFFFFFFF"));
        assertEquals(4294967295L, text(PgType.OID, "4294967295"));
        assertEquals(-2, bin(PgType.INT4, "FFFFFFFE"));
        assertEquals(42L, PgValues.int8(hex("002A"), true));
        assertThrows(MalformedValueException.class, () -> text(PgType.INT8, "9223372036854775808"));
        assertThrows(MalformedValueException.class, () -> text(PgType.INT8, "-9223372036854775809"));
        assertThrows(MalformedValueException.class, () -> text(PgType.INT8, "92233720368547758070"));
        assertThrows(MalformedValueException.class, () -> text(PgType.INT8, "-99999999999999999999"));
        assertEquals(-922337203685477580L, text(PgType.INT8, "-922337203685477580"));
        assertEquals(9223372036854775800L, text(PgType.INT8, "+9223372036854775800"));
        assertThrows(MalformedValueException.class, () -> text(PgType.INT4, "2147483648"));
        assertThrows(MalformedValueException.class, () -> text(PgType.INT4, "12a"));
        assertThrows(MalformedValueException.class, () -> text(PgType.INT4, "-"));
        assertThrows(MalformedValueException.class, () -> text(PgType.BOOL, "true"));
        assertThrows(MalformedValueException.class, () -> bin(PgType.INT8, "010203"));
    }

    @Test
    void floats() {
        assertEquals(Double.NaN, text(PgType.FLOAT8, "NaN"));
        assertEquals(Double.NEGATIVE_INFINITY, text(PgType.FLOAT8, "-Infinity"));
        assertEquals(1.5e300, text(PgType.FLOAT8, "1.5e+300"));
        assertEquals(0.1f, text(PgType.FLOAT4, "0.1"));
        assertEquals(1.5, bin(PgType.FLOAT8, "3FF8000000000000"));
        assertEquals(1.5f, bin(PgType.FLOAT4, "3FC00000"));
        assertThrows(MalformedValueException.class, () -> text(PgType.FLOAT8, "1.0f"));
        assertThrows(MalformedValueException.class, () -> text(PgType.FLOAT8, "0x1p3"));
    }

    @Test
    void numericBinary() {
        // 12345.678: ndigits 3, weight 1, sign +, dscale 3, digits 1 2345 6780
        assertEquals(new BigDecimal("12345.678"), bin(PgType.NUMERIC, "0003 0001 0000 0003 0001 0929 1A7C"));
        assertEquals(new BigDecimal("-0.001"), bin(PgType.NUMERIC, "0001 FFFF 4000 0003 000A"));
        assertEquals(new BigDecimal("0.00"), bin(PgType.NUMERIC, "0000 0000 0000 0002"));
        assertEquals(new BigDecimal("100000000"), bin(PgType.NUMERIC, "0001 0002 0000 0000 0001"));
        assertEquals(Double.NaN, bin(PgType.NUMERIC, "0000 0000 C000 0000"));
        assertEquals(Double.POSITIVE_INFINITY, bin(PgType.NUMERIC, "0000 0000 D000 0000"));
        assertEquals(Double.NEGATIVE_INFINITY, bin(PgType.NUMERIC, "0000 0000 F000 0000"));
        assertThrows(MalformedValueException.class, () -> bin(PgType.NUMERIC, "0003 0001 0000 0003 0001"));
        assertThrows(MalformedValueException.class, () -> bin(PgType.NUMERIC, "0001 0000 0000 0000 2710"));
        assertThrows(MalformedValueException.class, () -> bin(PgType.NUMERIC, "0001 0000 1234 0000 0001"));
        // digits beyond the display scale cannot come from a server
        assertThrows(MalformedValueException.class, () -> bin(PgType.NUMERIC, "0001 8000 0000 0000 0001"));
    }

    @Test
    void numericText() {
        assertEquals(new BigDecimal("12345.678"), text(PgType.NUMERIC, "12345.678"));
        assertEquals(new BigDecimal("-0.00100"), text(PgType.NUMERIC, "-0.00100"));
        assertEquals(Double.NaN, text(PgType.NUMERIC, "NaN"));
        assertEquals(Double.POSITIVE_INFINITY, text(PgType.NUMERIC, "Infinity"));
        assertEquals(Double.NEGATIVE_INFINITY, text(PgType.NUMERIC, "-Infinity"));
        assertThrows(MalformedValueException.class, () -> text(PgType.NUMERIC, "1e5"));
    }

    @Test
    void strings() {
        assertEquals("Zoë 🐘", text(PgType.TEXT, "Zoë 🐘"));
        assertEquals("abc  ", text(PgType.BPCHAR, "abc  "));
        assertEquals("{\"a\": 1}", text(PgType.JSONB, "{\"a\": 1}"));
        assertEquals("{\"a\": 1}", bin(PgType.JSONB, "01 7B2261223A20317D"));
        assertEquals("[1]", bin(PgType.JSON, "5B315D"));
        assertThrows(MalformedValueException.class, () -> bin(PgType.JSONB, "02 7B7D"));
        assertEquals("raw", text(99999, "raw"));
        assertArrayEquals(new byte[] {1, 2}, (byte[]) bin(99999, "0102"));
    }

    @Test
    void bytea() {
        assertArrayEquals(new byte[] {0x0a, (byte) 0xff}, (byte[]) text(PgType.BYTEA, "\\x0aFF"));
        assertArrayEquals(new byte[0], (byte[]) text(PgType.BYTEA, "\\x"));
        assertArrayEquals(new byte[] {'a', '\\', 'b', 1, (byte) 0377}, (byte[]) text(PgType.BYTEA, "a\\\\b\\001\\377"));
        assertArrayEquals(new byte[] {1, 2, 3}, (byte[]) bin(PgType.BYTEA, "010203"));
        assertThrows(MalformedValueException.class, () -> text(PgType.BYTEA, "\\x0"));
        assertThrows(MalformedValueException.class, () -> text(PgType.BYTEA, "\\xzz"));
        assertThrows(MalformedValueException.class, () -> text(PgType.BYTEA, "a\\9"));
    }

    @Test
    void uuid() {
        UUID u = UUID.fromString("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11");
        assertEquals(u, text(PgType.UUID, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"));
        assertEquals(u, bin(PgType.UUID, "a0eebc999c0b4ef8bb6d6bb9bd380a11"));
        assertThrows(MalformedValueException.class, () -> text(PgType.UUID, "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1"));
        assertThrows(MalformedValueException.class, () -> text(PgType.UUID, "a0eebc99x9c0b-4ef8-bb6d-6bb9bd380a11"));
    }

    @Test
    void dates() {
        assertEquals(LocalDate.of(2024, 1, 2), text(PgType.DATE, "2024-01-02"));
        assertEquals(LocalDate.of(0, 1, 1), text(PgType.DATE, "0001-01-01 BC"));
        assertEquals(LocalDate.of(-43, 3, 15), text(PgType.DATE, "0044-03-15 BC"));
        assertEquals(LocalDate.of(0, 2, 29), text(PgType.DATE, "0001-02-29 BC"), "1 BC is a leap year");
        assertEquals(LocalDate.of(12345, 6, 7), text(PgType.DATE, "12345-06-07"));
        assertEquals(LocalDate.MAX, text(PgType.DATE, "infinity"));
        assertEquals(LocalDate.MIN, text(PgType.DATE, "-infinity"));
        assertEquals(LocalDate.of(2000, 1, 1), bin(PgType.DATE, "00000000"));
        assertEquals(LocalDate.of(1999, 12, 31), bin(PgType.DATE, "FFFFFFFF"));
        assertEquals(LocalDate.MAX, bin(PgType.DATE, "7FFFFFFF"));
        assertEquals(LocalDate.MIN, bin(PgType.DATE, "80000000"));
        assertThrows(MalformedValueException.class, () -> text(PgType.DATE, "2023-02-29"));
        assertThrows(MalformedValueException.class, () -> text(PgType.DATE, "02.01.2024"));
    }

    @Test
    void times() {
        assertEquals(LocalTime.of(3, 4, 5, 123_456_000), text(PgType.TIME, "03:04:05.123456"));
        assertEquals(LocalTime.of(3, 4, 5, 500_000_000), text(PgType.TIME, "03:04:05.5"));
        assertEquals(LocalTime.MAX, text(PgType.TIME, "24:00:00"));
        assertEquals(LocalTime.of(1, 0), bin(PgType.TIME, "00000000D693A400"));
        assertEquals(OffsetTime.of(1, 0, 0, 0, ZoneOffset.ofHours(2)), bin(PgType.TIMETZ, "00000000D693A400 FFFFE3E0"));
        assertEquals(OffsetTime.of(3, 4, 5, 0, ZoneOffset.ofHoursMinutes(-3, -30)), text(PgType.TIMETZ, "03:04:05-03:30"));
        assertEquals(OffsetTime.of(3, 4, 5, 0, ZoneOffset.ofHoursMinutesSeconds(0, 53, 28)), text(PgType.TIMETZ, "03:04:05+00:53:28"));
        assertThrows(MalformedValueException.class, () -> text(PgType.TIME, "25:00:00"));
        assertThrows(MalformedValueException.class, () -> text(PgType.TIME, "03:04:05.1234567"));
    }

    @Test
    void timestamps() {
        assertEquals(LocalDateTime.of(2024, 1, 2, 3, 4, 5, 123_456_000), text(PgType.TIMESTAMP, "2024-01-02 03:04:05.123456"));
        assertEquals(LocalDateTime.of(0, 1, 1, 0, 0), text(PgType.TIMESTAMP, "0001-01-01 00:00:00 BC"));
        assertEquals(LocalDateTime.of(2000, 1, 1, 0, 0, 0, 1000), bin(PgType.TIMESTAMP, "0000000000000001"));
        assertEquals(LocalDateTime.of(1999, 12, 31, 23, 59, 59, 999_999_000), bin(PgType.TIMESTAMP, "FFFFFFFFFFFFFFFF"));
        assertEquals(LocalDateTime.MAX, bin(PgType.TIMESTAMP, "7FFFFFFFFFFFFFFF"));
        assertEquals(LocalDateTime.MIN, text(PgType.TIMESTAMP, "-infinity"));
        assertEquals(Instant.parse("2024-01-02T03:04:05.123456Z"), text(PgType.TIMESTAMPTZ, "2024-01-02 03:04:05.123456+00"));
        assertEquals(Instant.parse("2024-01-01T21:34:05Z"), text(PgType.TIMESTAMPTZ, "2024-01-02 03:04:05+05:30"));
        assertEquals(Instant.parse("2000-01-01T07:59:59Z"), text(PgType.TIMESTAMPTZ, "1999-12-31 23:59:59-08"));
        assertEquals(LocalDateTime.of(0, 1, 1, 0, 0).toInstant(ZoneOffset.UTC), text(PgType.TIMESTAMPTZ, "0001-01-01 00:00:00+00 BC"));
        assertEquals(Instant.parse("2000-01-01T00:00:00Z"), bin(PgType.TIMESTAMPTZ, "0000000000000000"));
        assertEquals(Instant.MAX, text(PgType.TIMESTAMPTZ, "infinity"));
        assertEquals(Instant.MIN, bin(PgType.TIMESTAMPTZ, "8000000000000000"));
        assertThrows(MalformedValueException.class, () -> text(PgType.TIMESTAMPTZ, "2024-01-02 03:04:05"));
        assertThrows(MalformedValueException.class, () -> text(PgType.TIMESTAMP, "2024-01-02T03:04:05"));
    }

    @Test
    void intervals() {
        assertEquals(new PgInterval(14, 3, 14_706_789_000L), text(PgType.INTERVAL, "1 year 2 mons 3 days 04:05:06.789"));
        assertEquals(new PgInterval(0, -1, 7_380_000_000L), text(PgType.INTERVAL, "-1 days +02:03:00"));
        assertEquals(new PgInterval(3, -10, -3_600_000_000L), text(PgType.INTERVAL, "3 mons -10 days -01:00:00"));
        assertEquals(PgInterval.ZERO, text(PgType.INTERVAL, "00:00:00"));
        assertEquals(new PgInterval(0, 0, -1_500_000L), text(PgType.INTERVAL, "-00:00:01.5"));
        assertEquals(new PgInterval(-12, 0, 0), text(PgType.INTERVAL, "-1 years"));
        assertEquals(new PgInterval(1, 1, 0), text(PgType.INTERVAL, "1 mon 1 day"));
        assertEquals(new PgInterval(0, 0, 3_600_000_000_000L), text(PgType.INTERVAL, "1000:00:00"));
        assertEquals(PgInterval.POSITIVE_INFINITY, text(PgType.INTERVAL, "infinity"));
        // binary: Int64 micros, Int32 days, Int32 months
        assertEquals(new PgInterval(14, 3, 1_000_000L), bin(PgType.INTERVAL, "00000000000F4240 00000003 0000000E"));
        assertTrue(((PgInterval) bin(PgType.INTERVAL, "7FFFFFFFFFFFFFFF 7FFFFFFF 7FFFFFFF")).isInfinite());
        assertThrows(MalformedValueException.class, () -> text(PgType.INTERVAL, "P1Y2M"));
        assertThrows(MalformedValueException.class, () -> text(PgType.INTERVAL, "@ 1 year"));
    }

    @Test
    void textArrays() {
        assertEquals(Arrays.asList(1, 2, null), text(PgType.INT4_ARRAY, "{1,2,NULL}"));
        assertEquals(Arrays.asList("a b", "with \"quote\"", null, "NULL", "plain", "back\\slash", "", "{}"),
                text(PgType.TEXT_ARRAY, "{\"a b\",\"with \\\"quote\\\"\",NULL,\"NULL\",plain,\"back\\\\slash\",\"\",\"{}\"}"));
        assertEquals(List.of(List.of(1L, 2L), List.of(3L, 4L)), text(PgType.INT8_ARRAY, "{{1,2},{3,4}}"));
        assertEquals(List.of(5, 6), text(PgType.INT4_ARRAY, "[0:1]={5,6}"));
        assertEquals(List.of(), text(PgType.INT4_ARRAY, "{}"));
        assertEquals(List.of(LocalDate.of(2024, 1, 2), LocalDate.MAX), text(PgType.DATE_ARRAY, "{2024-01-02,infinity}"));
        assertEquals(List.of(Instant.parse("2024-01-02T03:04:05Z")), text(PgType.TIMESTAMPTZ_ARRAY, "{\"2024-01-02 03:04:05+00\"}"));
        assertThrows(MalformedValueException.class, () -> text(PgType.INT4_ARRAY, "{1,2"));
        assertThrows(MalformedValueException.class, () -> text(PgType.INT4_ARRAY, "{1,,2}"));
        assertThrows(MalformedValueException.class, () -> text(PgType.INT4_ARRAY, "{{{{{{{1}}}}}}}"));
        assertThrows(MalformedValueException.class, () -> text(PgType.INT4_ARRAY, "{1}x"));
    }

    @Test
    void binaryArrays() {
        // int4[] {1,NULL,3}: ndim 1, hasnull 1, elem 23, size 3, lbound 1, elements
        assertEquals(Arrays.asList(1, null, 3),
                bin(PgType.INT4_ARRAY, "00000001 00000001 00000017 00000003 00000001 00000004 00000001 FFFFFFFF 00000004 00000003"));
        // text[][] {{a,b},{c,d}}
        assertEquals(List.of(List.of("a", "b"), List.of("c", "d")),
                bin(PgType.TEXT_ARRAY, "00000002 00000000 00000019 00000002 00000001 00000002 00000001"
                        + " 00000001 61 00000001 62 00000001 63 00000001 64"));
        assertEquals(List.of(), bin(PgType.INT4_ARRAY, "00000000 00000000 00000017"));
        // hostile dimension: 2^31-1 elements in a few bytes
        assertThrows(MalformedValueException.class,
                () -> bin(PgType.INT4_ARRAY, "00000001 00000000 00000017 7FFFFFFF 00000001 00000004"));
        assertThrows(MalformedValueException.class, () -> bin(PgType.INT4_ARRAY, "00000007 00000000 00000017"));
        assertThrows(MalformedValueException.class,
                () -> bin(PgType.INT4_ARRAY, "00000001 00000000 00000017 00000001 00000001 00000010 00000001"));
    }

    @Test
    void pgLsn() {
        assertEquals(io.pgrepl.codec.Lsn.of(0x1_0000_0ABCL), text(PgType.PG_LSN, "1/ABC"));
        assertEquals(io.pgrepl.codec.Lsn.of(0x16B3748L), bin(PgType.PG_LSN, "00000000016B3748"));
        assertEquals("0/16B3748", bin(PgType.PG_LSN, "00000000016B3748").toString(), "prints as the server does");
        assertEquals(1, io.pgrepl.codec.Lsn.of(0xFFFFFFFF00000000L).compareTo(io.pgrepl.codec.Lsn.of(1)), "unsigned order");
    }

    @Test
    void readsOnlyTheGivenRange() {
        ByteBuf b = txt("xx123yy");
        assertEquals(123, PgValues.int4(b, 2, 3, false));
        assertThrows(IllegalArgumentException.class, () -> PgValues.decode(PgType.INT4, false, b, 5, 3));
        MalformedMessageException e = assertThrows(MalformedMessageException.class, () -> PgValues.int4(b, 0, 3, false));
        assertFalse(e.getMessage().contains("xx1"), "error must not echo the value");
    }
}
