package io.pgrepl.kafka.connect.values;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.pgrepl.codec.pgoutput.ColumnInfo;
import io.pgrepl.codec.value.PgInterval;
import io.pgrepl.codec.value.PgType;
import io.pgrepl.kafka.connect.PgreplConnectorConfig.BinaryMode;
import io.pgrepl.kafka.connect.PgreplConnectorConfig.DecimalMode;
import io.pgrepl.kafka.connect.PgreplConnectorConfig.HstoreMode;
import io.pgrepl.kafka.connect.PgreplConnectorConfig.IntervalMode;
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
    private final ValueConverters precise = new ValueConverters(new ValueConverters.Modes(DecimalMode.PRECISE,
            BinaryMode.BYTES, TimePrecisionMode.ADAPTIVE_TIME_MICROSECONDS, IntervalMode.NUMERIC, HstoreMode.JSON),
            CatalogTypes.of(new CatalogTypes.Type(MOOD, 'e', "mood", 0, 0, -1, "sad,ok,happy"),
                    new CatalogTypes.Type(MOOD_ARRAY, 'b', "_mood", MOOD, 0, -1, null)));

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
        // a user type Debezium has no mapping for either: left out (include.unknown.datatypes=false)
        assertTrue(column(MOOD + 2, -1).omitted());
    }

    @Test
    void typesWithoutAMappingAreTheBytesOfTheirTextWithIncludeUnknownDatatypes() {
        CatalogTypes types = CatalogTypes.of(new CatalogTypes.Type(MOOD + 2, 'c', "pair", 0, 0, -1, null),
                new CatalogTypes.Type(MOOD + 3, 'b', "_pair", MOOD + 2, 0, -1, null));
        ValueConverters bytes = new ValueConverters(new ValueConverters.Modes(DecimalMode.PRECISE, BinaryMode.BYTES,
                TimePrecisionMode.ADAPTIVE, IntervalMode.NUMERIC, HstoreMode.JSON, true), types);
        ValueConverters.Column c = bytes.column(new ColumnInfo(0, "c", MOOD + 2, -1), true);
        assertEquals(Schema.OPTIONAL_BYTES_SCHEMA, c.schema());
        assertEquals(ByteBuffer.wrap("(7,\"s \u00e9\")".getBytes(java.nio.charset.StandardCharsets.UTF_8)),
                c.convert().apply("(7,\"s \u00e9\")"));
        ValueConverters.Column a = bytes.column(new ColumnInfo(0, "a", MOOD + 3, -1), true);
        assertEquals(Schema.Type.BYTES, a.schema().valueSchema().type());
        assertEquals(List.of(ByteBuffer.wrap("(1,x)".getBytes(java.nio.charset.StandardCharsets.US_ASCII))),
                a.convert().apply("{\"(1,x)\"}"));
        ValueConverters hex = new ValueConverters(new ValueConverters.Modes(DecimalMode.PRECISE, BinaryMode.HEX,
                TimePrecisionMode.ADAPTIVE, IntervalMode.NUMERIC, HstoreMode.JSON, true), types);
        assertEquals("28312c7829", hex.column(new ColumnInfo(0, "c", MOOD + 2, -1), true).convert().apply("(1,x)"));
        // built-in types Debezium maps stay text; a multirange (4451, int4multirange) has no mapping
        ValueConverters left = new ValueConverters(new ValueConverters.Modes(DecimalMode.PRECISE, BinaryMode.BYTES,
                TimePrecisionMode.ADAPTIVE, IntervalMode.NUMERIC, HstoreMode.JSON), types);
        assertEquals(Schema.OPTIONAL_STRING_SCHEMA, left.column(new ColumnInfo(0, "i", 869, -1), true).schema());
        assertTrue(left.column(new ColumnInfo(0, "m", 4451, -1), true).omitted());
        assertTrue(left.column(new ColumnInfo(0, "a", MOOD + 3, -1), true).omitted());
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

    private static ValueConverters modes(DecimalMode d, TimePrecisionMode t, IntervalMode i, HstoreMode h, CatalogTypes types) {
        return new ValueConverters(new ValueConverters.Modes(d, BinaryMode.BYTES, t, i, h), types);
    }

    @Test
    void infiniteTimestampsAreDebeziumsValuesInEveryUnit() {
        // Debezium 3.6.1's values for 'infinity' and '-infinity' (its snapshot and its stream agree)
        ValueConverters a = modes(DecimalMode.PRECISE, TimePrecisionMode.ADAPTIVE, IntervalMode.NUMERIC, HstoreMode.JSON, CatalogTypes.of());
        assertEquals(9_223_372_036_825_200_000L, a.column(new ColumnInfo(0, "c", PgType.TIMESTAMP, -1), true).convert()
                .apply(java.time.LocalDateTime.MAX));
        assertEquals(-9_223_372_036_832_400L, a.column(new ColumnInfo(0, "c", PgType.TIMESTAMP, 0), true).convert()
                .apply(java.time.LocalDateTime.MIN));
        ValueConverters m = modes(DecimalMode.PRECISE, TimePrecisionMode.MICROSECONDS, IntervalMode.NUMERIC, HstoreMode.JSON, CatalogTypes.of());
        assertEquals(-9_223_372_036_832_400_000L, m.column(new ColumnInfo(0, "c", PgType.TIMESTAMP, 0), true).convert()
                .apply(java.time.LocalDateTime.MIN));
    }

    @Test
    void adaptiveTimeFollowsTheDeclaredPrecisionAndArraysTakeTheColumnsModifier() {
        ValueConverters a = modes(DecimalMode.PRECISE, TimePrecisionMode.ADAPTIVE, IntervalMode.NUMERIC, HstoreMode.JSON, CatalogTypes.of());
        ValueConverters.Column tm2 = a.column(new ColumnInfo(0, "c", PgType.TIME, 2), true);
        assertEquals("io.debezium.time.Time", tm2.schema().name());
        assertEquals(86_399_990, tm2.convert().apply(java.time.LocalTime.parse("23:59:59.99")));
        // numeric(10,2)[]: atttypmod (10 << 16 | 2) + 4 is the elements'
        ValueConverters.Column na = a.column(new ColumnInfo(0, "c", PgType.NUMERIC_ARRAY, (10 << 16 | 2) + 4), true);
        assertEquals("org.apache.kafka.connect.data.Decimal", na.schema().valueSchema().name());
        assertEquals("2", na.schema().valueSchema().parameters().get("scale"));
        assertEquals(Arrays.asList(new BigDecimal("1.50"), null), na.convert().apply(Arrays.asList(new BigDecimal("1.5"), null)));
    }

    @Test
    void aDomainIsItsBaseTypeWithTheDomainsModifierAndItsArrayAnArrayOfThat() {
        int money83 = 30_000;
        int money83Array = 30_001;
        CatalogTypes types = CatalogTypes.of(new CatalogTypes.Type(money83, 'd', "money83", 0, PgType.NUMERIC, (8 << 16 | 3) + 4, null),
                new CatalogTypes.Type(money83Array, 'b', "_money83", money83, 0, -1, null));
        ValueConverters a = modes(DecimalMode.PRECISE, TimePrecisionMode.ADAPTIVE, IntervalMode.NUMERIC, HstoreMode.JSON, types);
        ValueConverters.Column d = a.column(new ColumnInfo(0, "c", money83, -1), true);
        assertEquals("3", d.schema().parameters().get("scale"));
        assertEquals("8", d.schema().parameters().get("connect.decimal.precision"));
        // the codec does not know the domain: its value is text
        assertEquals(new BigDecimal("3.141"), d.convert().apply("3.141"));
        ValueConverters.Column arr = a.column(new ColumnInfo(0, "c", money83Array, -1), true);
        assertEquals(Arrays.asList(new BigDecimal("1.500"), null), arr.convert().apply("{1.5,NULL}"));
    }

    @Test
    void hstorePointIntervalTextAndNumericSpecialsAsDebeziumWritesThem() {
        int hstore = 40_000;
        CatalogTypes types = CatalogTypes.of(new CatalogTypes.Type(hstore, 'b', "hstore", 0, 0, -1, null));
        ValueConverters json = modes(DecimalMode.STRING, TimePrecisionMode.ADAPTIVE, IntervalMode.STRING, HstoreMode.JSON, types);
        // Debezium 3.6.1's JSON of '"a"=>"1", "b"=>NULL' and of ''
        assertEquals("{\"a\":\"1\",\"b\":null}", json.column(new ColumnInfo(0, "c", hstore, -1), true).convert().apply("\"a\"=>\"1\", \"b\"=>NULL"));
        assertEquals("{}", json.column(new ColumnInfo(0, "c", hstore, -1), true).convert().apply(""));
        ValueConverters map = modes(DecimalMode.STRING, TimePrecisionMode.ADAPTIVE, IntervalMode.STRING, HstoreMode.MAP, types);
        java.util.Map<String, String> m = new java.util.HashMap<>();
        m.put("k \"q\"", null);
        assertEquals(m, map.column(new ColumnInfo(0, "c", hstore, -1), true).convert().apply("\"k \\\"q\\\"\"=>NULL"));
        // point (1.5,-2): Debezium's WKB of it
        org.apache.kafka.connect.data.Struct pt = (org.apache.kafka.connect.data.Struct) json.column(
                new ColumnInfo(0, "c", ValueConverters.POINT, -1), true).convert().apply("(1.5,-2)");
        assertEquals("AQEAAAAAAAAAAAD4PwAAAAAAAADA", java.util.Base64.getEncoder().encodeToString(pt.getBytes("wkb")));
        // interval.handling.mode=string
        assertEquals("P1Y2M3DT4H5M6.789S", json.column(new ColumnInfo(0, "c", PgType.INTERVAL, -1), true).convert()
                .apply(new PgInterval(14, 3, 14_706_789_000L)));
        assertEquals("P0Y0M-1DT0H0M0S", json.column(new ColumnInfo(0, "c", PgType.INTERVAL, -1), true).convert()
                .apply(new PgInterval(0, -1, 0)));
        // decimal.handling.mode=string: NaN as Debezium names it
        assertEquals("NAN", json.column(new ColumnInfo(0, "c", PgType.NUMERIC, -1), true).convert().apply(Double.NaN));
    }
}
