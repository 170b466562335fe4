package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.pgrepl.codec.pgoutput.ColumnInfo;
import io.pgrepl.codec.value.PgInterval;
import io.pgrepl.codec.value.PgType;
import io.pgrepl.kafka.connect.PgreplConnectorConfig.BinaryMode;
import io.pgrepl.kafka.connect.PgreplConnectorConfig.DecimalMode;
import io.pgrepl.kafka.connect.PgreplConnectorConfig.TimePrecisionMode;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.connect.data.Schema;
import org.junit.jupiter.api.Test;

/**
 * Debezium's schemas for the types whose mapping needs more than the decoded value: money, bit
 * strings, xml, enums and enum arrays, each given the text pgoutput sends, and intervals and
 * timestamptz as Debezium 3.6.1 sends them. (End to end in {@link ModesTest}.)
 */
class ValueConvertersTest {
    private static final int MOOD = 20_000;
    private static final int MOOD_ARRAY = 20_001;
    private final ValueConverters precise = new ValueConverters(DecimalMode.PRECISE, BinaryMode.BYTES,
            TimePrecisionMode.ADAPTIVE_TIME_MICROSECONDS, oid -> oid == MOOD ? "sad,ok,happy" : null,
            oid -> oid == MOOD_ARRAY ? MOOD : 0);

    private ValueConverters.Column column(int oid, int typmod) {
        return precise.column(new ColumnInfo(0, "c", oid, typmod), true);
    }

    @Test
    void moneyIsADecimalOfScaleTwoWhateverTheCurrencyText() {
        ValueConverters.Column m = column(ValueConverters.MONEY, -1);
        assertEquals("org.apache.kafka.connect.data.Decimal", m.schema().name());
        assertEquals("2", m.schema().parameters().get("scale"));
        assertEquals(new BigDecimal("-1234.56"), m.convert().apply("-$1,234.56"));
        assertEquals(new BigDecimal("1234567.80"), m.convert().apply("$1,234,567.80"));
        assertEquals(new BigDecimal("-0.05"), m.convert().apply("($0.05)"));
    }

    @Test
    void pgLsnKeepsItsRecordFormAStringOfTheBytePosition() {
        ValueConverters.Column c = column(io.pgrepl.codec.value.PgType.PG_LSN, -1);
        assertEquals(Schema.Type.STRING, c.schema().type());
        // 16/B374D848 decodes to an Lsn; the record carries its byte position as before (not 16/B374D848)
        Object decoded = io.pgrepl.codec.value.PgValues.decode(io.pgrepl.codec.value.PgType.PG_LSN, false,
                io.netty.buffer.Unpooled.copiedBuffer("16/B374D848", java.nio.charset.StandardCharsets.US_ASCII));
        assertEquals("97500059720", c.convert().apply(decoded));
    }

    @Test
    void bitStringsAreDebeziumBitsLittleEndianAndBit1IsABoolean() {
        ValueConverters.Column b = column(ValueConverters.BIT, 10);
        assertEquals("io.debezium.data.Bits", b.schema().name());
        assertEquals("10", b.schema().parameters().get("length"));
        assertEquals(ByteBuffer.wrap(new byte[] {0x01, 0x02}), b.convert().apply("1000000001"));
        assertEquals(ByteBuffer.wrap(new byte[] {(byte) 0x80}), column(ValueConverters.VARBIT, 12).convert().apply("10000000"));
        assertArrayEquals(new byte[0], ValueConverters.bits("0000"));
        ValueConverters.Column flag = column(ValueConverters.BIT, 1);
        assertEquals(Schema.Type.BOOLEAN, flag.schema().type());
        assertEquals(true, flag.convert().apply("1"));
        assertEquals(false, flag.convert().apply("0"));
    }

    @Test
    void xmlAndEnumsCarryDebeziumsNames() {
        assertEquals("io.debezium.data.Xml", column(ValueConverters.XML, -1).schema().name());
        Schema e = column(MOOD, -1).schema();
        assertEquals("io.debezium.data.Enum", e.name());
        assertEquals("sad,ok,happy", e.parameters().get("allowed"));
        assertEquals(Integer.valueOf(1), e.version());
        // a user type that is not an enum stays a plain string
        assertNull(column(MOOD + 2, -1).schema().name());
        assertEquals(Schema.Type.STRING, column(MOOD + 2, -1).schema().type());
    }

    @Test
    void anEnumArrayIsAnArrayOfDebeziumEnumsParsedFromItsText() {
        ValueConverters.Column a = column(MOOD_ARRAY, -1);
        assertEquals(Schema.Type.ARRAY, a.schema().type());
        assertEquals("io.debezium.data.Enum", a.schema().valueSchema().name());
        assertEquals("sad,ok,happy", a.schema().valueSchema().parameters().get("allowed"));
        assertEquals(List.of("sad", "ok"), a.convert().apply("{sad,ok}"));
        assertEquals(List.of(), a.convert().apply("{}"));
        // labels needing quotes, and a NULL element (the element schema is optional for it)
        assertEquals(Arrays.asList("it's \"ok\"", null, "a,b"), a.convert().apply("{\"it's \\\"ok\\\"\",NULL,\"a,b\"}"));
    }

    @Test
    void intervalsAreInt64MicroDurationsWithMonthsAt30Point4375Days() {
        ValueConverters.Column iv = column(PgType.INTERVAL, -1);
        assertEquals(Schema.Type.INT64, iv.schema().type());
        assertEquals("io.debezium.time.MicroDuration", iv.schema().name());
        // '1 year 2 mons -3 days 04:05:06.789', the value Debezium 3.6.1 sent for it
        assertEquals(36_572_706_789_000L, iv.convert().apply(new PgInterval(14, -3, 14_706_789_000L)));
        assertEquals(-1L, iv.convert().apply(new PgInterval(0, 0, -1)));
        assertEquals(0L, iv.convert().apply(PgInterval.ZERO));
        // PG17 infinite intervals, and a finite one beyond a long, saturate
        assertEquals(Long.MAX_VALUE, iv.convert().apply(PgInterval.POSITIVE_INFINITY));
        assertEquals(Long.MIN_VALUE, iv.convert().apply(PgInterval.NEGATIVE_INFINITY));
        assertEquals(Long.MIN_VALUE, iv.convert().apply(new PgInterval(-178_000_000, 0, 0)));
    }

    @Test
    void timestamptzPadsItsFractionToTheDeclaredPrecision() {
        Instant whole = Instant.parse("2000-01-01T00:00:00Z");
        Instant bc = Instant.parse("-0043-03-15T12:00:00.25Z");
        // typmod -1: plain timestamptz, six digits
        assertEquals("2000-01-01T00:00:00.000000Z", column(PgType.TIMESTAMPTZ, -1).convert().apply(whole));
        assertEquals("-0043-03-15T12:00:00.250000Z", column(PgType.TIMESTAMPTZ, -1).convert().apply(bc));
        assertEquals("2000-01-01T00:00:00.000Z", column(PgType.TIMESTAMPTZ, 3).convert().apply(whole));
        assertEquals("-0043-03-15T12:00:00.250Z", column(PgType.TIMESTAMPTZ, 3).convert().apply(bc));
        assertEquals("2000-01-01T00:00:00Z", column(PgType.TIMESTAMPTZ, 0).convert().apply(whole));
        assertEquals("infinity", column(PgType.TIMESTAMPTZ, -1).convert().apply(Instant.MAX));
        assertEquals("-infinity", column(PgType.TIMESTAMPTZ, 6).convert().apply(Instant.MIN));
    }
}
