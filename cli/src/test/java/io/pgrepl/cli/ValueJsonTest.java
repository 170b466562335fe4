package io.pgrepl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.pgrepl.codec.value.PgInterval;
import io.pgrepl.codec.value.PgType;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The value writer's fast paths, checked against the JDK's and PostgreSQL's own forms. */
class ValueJsonTest {
    private static String text(int oid, String pgText) {
        JsonBytes o = new JsonBytes();
        byte[] b = pgText.getBytes(StandardCharsets.UTF_8);
        ValueJson.write(o, oid, false, Unpooled.wrappedBuffer(b), 0, b.length);
        return o.toString();
    }

    private static ByteBuf ascii(String s) {
        return Unpooled.wrappedBuffer(s.getBytes(StandardCharsets.US_ASCII));
    }

    /** The value in the middle of a direct buffer (as a snapshot row's COPY frame holds it), read in place. */
    private static String inPlace(int oid, String pgText) {
        byte[] v = pgText.getBytes(StandardCharsets.UTF_8);
        ByteBuf frame = Unpooled.directBuffer().writeBytes("\n\"\u2028".getBytes(StandardCharsets.UTF_8)).writeBytes(v)
                .writeBytes("\"\n".getBytes(StandardCharsets.UTF_8));
        try {
            JsonBytes o = new JsonBytes();
            ValueJson.write(o, oid, false, frame, 5, v.length);
            return o.toString();
        } finally {
            frame.release();
        }
    }

    @Test
    void valuesReadInPlaceFromADirectBufferLookAsFromAnArray() {
        String[][] cases = {
                {Integer.toString(PgType.TEXT), "a\"b\\c\nd\u0001\u2028é x"}, {Integer.toString(PgType.INT8), "-42"},
                {Integer.toString(PgType.NUMERIC), "NaN"}, {Integer.toString(PgType.BOOL), "t"},
                {Integer.toString(PgType.JSONB), "{\"a\": [1, 2]}"}, {Integer.toString(PgType.JSON), "{\"a\":\n1}"},
                {Integer.toString(PgType.TIMESTAMPTZ), "2024-02-29 12:34:56.5+00"},
                {Integer.toString(PgType.TIMESTAMPTZ), "2024-02-29 12:34:56+02"}, {Integer.toString(PgType.BYTEA), "\\xdeadbeef"},
                {Integer.toString(PgType.INT4_ARRAY), "{1,NULL,3}"}};
        for (String[] c : cases) {
            int oid = Integer.parseInt(c[0]);
            assertEquals(text(oid, c[1]), inPlace(oid, c[1]), c[1]);
        }
        // and what they are, independently of the array path
        assertEquals("\"a\\\"b\\\\c\\nd\\u0001\\u2028é x\"", inPlace(PgType.TEXT, "a\"b\\c\nd\u0001\u2028é x"));
        assertEquals("{\"a\": 1}", inPlace(PgType.JSON, "{\"a\":\n1}"));
        assertEquals("\"3q2+7w==\"", inPlace(PgType.BYTEA, "\\xdeadbeef"));
        assertEquals("[1,null,3]", inPlace(PgType.INT4_ARRAY, "{1,NULL,3}"));
    }

    @Test
    void utcTimestamptzTextIsWrittenAsInstantToStringDoes() {
        // expected: java.time's rendering of the same instant (what commit_time uses)
        assertEquals("\"" + Instant.parse("2024-02-29T12:34:56Z") + "\"", text(PgType.TIMESTAMPTZ, "2024-02-29 12:34:56+00"));
        assertEquals("\"" + Instant.parse("2024-02-29T12:34:56.500Z") + "\"", text(PgType.TIMESTAMPTZ, "2024-02-29 12:34:56.5+00"));
        assertEquals("\"" + Instant.parse("2024-02-29T12:34:56.123450Z") + "\"", text(PgType.TIMESTAMPTZ, "2024-02-29 12:34:56.12345+00"));
        // other offsets and eras take the parsing path, with the same result form
        assertEquals("\"" + Instant.parse("2024-02-29T10:34:56Z") + "\"", text(PgType.TIMESTAMPTZ, "2024-02-29 12:34:56+02"));
        assertEquals("\"infinity\"", text(PgType.TIMESTAMPTZ, "infinity"));
        assertFalse(ValueJson.utcTimestamp(new JsonBytes(), ascii("2024-02-29 12:34:56+02"), 0, 22));
    }

    @Test
    void numbersAreCopiedOnlyWhenJsonAllowsThem() {
        assertEquals("-12.50", text(PgType.NUMERIC, "-12.50"));
        assertEquals("1e+30", text(PgType.FLOAT8, "1e+30"));
        assertEquals("\"NaN\"", text(PgType.NUMERIC, "NaN"));
        assertEquals("\"-Infinity\"", text(PgType.FLOAT4, "-Infinity"));
        for (String bad : new String[] {"", "-", "01", "1.", ".5", "1e", "+1", "1.5e+"}) {
            assertFalse(ValueJson.isJsonNumber(ascii(bad), 0, bad.length()), bad);
        }
        assertTrue(ValueJson.isJsonNumber(ascii("0.001E-7"), 0, 8));
    }

    @Test
    void intervalsAsPostgresPrintsThem() {
        // expected: psql's output of the same intervals (IntervalStyle postgres)
        assertEquals("1 day 02:00:00", ValueJson.interval(new PgInterval(0, 1, 7_200_000_000L)));
        assertEquals("1 year 2 mons -3 days +04:05:06.5", ValueJson.interval(new PgInterval(14, -3, 14_706_500_000L)));
        assertEquals("-00:00:01", ValueJson.interval(new PgInterval(0, 0, -1_000_000L)));
        assertEquals("00:00:00", ValueJson.interval(PgInterval.ZERO));
    }

    @Test
    void stringsAreEscapedInPlace() {
        assertEquals("\"a\\\"b\\\\c\\nd\\u0001\\u2028é\"", text(PgType.TEXT, "a\"b\\c\nd\u0001\u2028é"));
        JsonBytes o = new JsonBytes();
        o.str("x\ud83d\ude00\u2029");
        assertEquals("\"x\ud83d\ude00\\u2029\"", o.toString());
        o = new JsonBytes();
        o.lsn(0x16B3748L).raw(',').lsn(0xFFFFFFFF00000000L);
        assertEquals("\"0/16B3748\",\"FFFFFFFF/0\"", o.toString());
        o = new JsonBytes();
        o.base64(new byte[] {(byte) 0xde, (byte) 0xad, (byte) 0xbe, (byte) 0xef, 1}, 0, 5);
        assertEquals("\"" + java.util.Base64.getEncoder().encodeToString(new byte[] {(byte) 0xde, (byte) 0xad, (byte) 0xbe,
                (byte) 0xef, 1}) + "\"", o.toString());
    }
}
