package io.pgrepl.codec.value;

import static org.junit.jupiter.api.Assertions.*;

import io.netty.buffer.Unpooled;
import io.pgrepl.codec.MalformedMessageException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import net.jqwik.api.*;

class PgValuesPropertyTest {
    private static final int[] OIDS = {PgType.BOOL, PgType.INT2, PgType.INT4, PgType.INT8, PgType.OID, PgType.FLOAT4,
            PgType.FLOAT8, PgType.NUMERIC, PgType.TEXT, PgType.JSONB, PgType.BYTEA, PgType.UUID, PgType.DATE, PgType.TIME,
            PgType.TIMETZ, PgType.TIMESTAMP, PgType.TIMESTAMPTZ, PgType.INTERVAL, PgType.PG_LSN, PgType.INT4_ARRAY,
            PgType.TEXT_ARRAY, PgType.NUMERIC_ARRAY, PgType.TIMESTAMPTZ_ARRAY, PgType.BYTEA_ARRAY};

    @Provide
    Arbitrary<Integer> oids() {
        return Arbitraries.of(java.util.Arrays.stream(OIDS).boxed().collect(java.util.stream.Collectors.toList()));
    }

    /** Arbitrary bytes as any type, text or binary: a value or a typed error, nothing else. */
    @Property(tries = 5000)
    void arbitraryBytesGiveValueOrTypedError(@ForAll("oids") int oid, @ForAll boolean binary, @ForAll byte[] bytes) {
        try {
            PgValues.decode(oid, binary, Unpooled.wrappedBuffer(bytes), 0, bytes.length);
        } catch (MalformedMessageException expected) {
            assertTrue(expected.offset() >= 0);
        }
    }

    /** Text built from the characters these formats use, so parsing gets past the first byte. */
    @Property(tries = 5000)
    void plausibleTextGivesValueOrTypedError(@ForAll("oids") int oid,
                                             @ForAll @net.jqwik.api.constraints.Chars({'0', '1', '9', '-', '+', ':', '.', ' ', '{', '}', ',', '"', '\\', 'x', 'B', 'C', 'N', 'U', 'L', 'a', 'f', 'i', 'n', 't', 'y', 'd', 's', '[', ']', '='}) @net.jqwik.api.constraints.StringLength(max = 40) String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        try {
            PgValues.decode(oid, false, Unpooled.wrappedBuffer(b), 0, b.length);
        } catch (MalformedMessageException expected) {
            assertTrue(expected.offset() >= 0);
        }
    }

    /** BigDecimal → numeric_send layout (written here from the format description) → same value. */
    @Property(tries = 2000)
    void numericBinaryRoundTrip(@ForAll long unscaled, @ForAll @net.jqwik.api.constraints.IntRange(min = 0, max = 30) int scale) {
        BigDecimal v = BigDecimal.valueOf(unscaled, scale);
        assertEquals(v, PgValues.numeric(Unpooled.wrappedBuffer(numericSend(v)), 0, numericSend(v).length, true));
    }

    static byte[] numericSend(BigDecimal v) {
        int dscale = v.scale();
        int fracPadded = (dscale + 3) / 4 * 4;
        String padded = v.unscaledValue().abs().toString() + "0".repeat(fracPadded - dscale);
        int intLen = padded.length() - fracPadded;
        if (intLen < 0) {
            padded = "0".repeat(-intLen) + padded;
            intLen = 0;
        }
        padded = "0".repeat((4 - intLen % 4) % 4) + padded;
        int groups = padded.length() / 4;
        int weight = (padded.length() - fracPadded) / 4 - 1;
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.DataOutputStream d = new java.io.DataOutputStream(out);
        try {
            d.writeShort(groups);
            d.writeShort(weight);
            d.writeShort(v.signum() < 0 ? 0x4000 : 0);
            d.writeShort(dscale);
            for (int i = 0; i < groups; i++) d.writeShort(Integer.parseInt(padded.substring(4 * i, 4 * i + 4)));
        } catch (java.io.IOException e) {
            throw new AssertionError(e);
        }
        return out.toByteArray();
    }
}
