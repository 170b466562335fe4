package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.pgrepl.codec.pgoutput.ColumnInfo;
import io.pgrepl.kafka.connect.PgreplConnectorConfig.BinaryMode;
import io.pgrepl.kafka.connect.PgreplConnectorConfig.DecimalMode;
import io.pgrepl.kafka.connect.PgreplConnectorConfig.TimePrecisionMode;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import org.apache.kafka.connect.data.Schema;
import org.junit.jupiter.api.Test;

/**
 * Debezium's schemas for the types whose mapping needs more than the decoded value: money, bit
 * strings, xml and enums, each given the text pgoutput sends. (End to end in {@link ModesTest}.)
 */
class ValueConvertersTest {
    private static final int MOOD = 20_000;
    private final ValueConverters precise = new ValueConverters(DecimalMode.PRECISE, BinaryMode.BYTES,
            TimePrecisionMode.ADAPTIVE_TIME_MICROSECONDS, oid -> oid == MOOD ? "sad,ok,happy" : null);

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
        assertNull(column(MOOD + 1, -1).schema().name());
    }
}
