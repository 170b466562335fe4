package io.pgrepl.codec;

import static org.junit.jupiter.api.Assertions.*;

import io.netty.buffer.Unpooled;
import io.pgrepl.codec.internal.Wire;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class CodecPrimitivesTest {
    @Test
    void lsnParsesBothTextForms() {
        assertEquals(0x16B3748L, Lsn.parse("0/16B3748"));
        assertEquals(0x16B3748L, Lsn.parse("0/016B3748"));
        assertEquals(0xFFFFFFFF_FFFFFFFFL, Lsn.parse("FFFFFFFF/FFFFFFFF"));
        assertEquals("0/16B3748", Lsn.format(0x16B3748L));
        assertEquals("FFFFFFFF/0", Lsn.format(0xFFFFFFFF_00000000L));
        assertEquals("0/0", Lsn.format(0L));
        assertEquals("A/F", Lsn.format(0xA_0000000FL));
        assertEquals("10/10", Lsn.format(0x10_00000010L));
        assertEquals("12345678/9ABCDEF0", Lsn.format(0x12345678_9ABCDEF0L));
        assertEquals("FFFFFFFF/FFFFFFFF", Lsn.format(-1L));
        for (String bad : new String[] {"", "/1", "1/", "1/2/3", "123456789/1", "0/x", "0/123456789"}) {
            assertThrows(IllegalArgumentException.class, () -> Lsn.parse(bad), bad);
        }
        assertTrue(Lsn.compare(0x8000_0000_0000_0000L, 1) > 0, "unsigned order");
        assertEquals(0x8000_0000_0000_0000L, Lsn.max(1, 0x8000_0000_0000_0000L));
    }

    @Test
    void pgTimeEpochs() {
        assertEquals(Instant.parse("2000-01-01T00:00:00Z"), PgTime.toInstant(0));
        assertEquals(Instant.parse("1999-12-31T23:59:59.999999Z"), PgTime.toInstant(-1));
        assertEquals(-946_684_800_000_000L, PgTime.fromInstant(Instant.EPOCH));
        Instant t = Instant.parse("2024-01-02T03:04:05.123456Z");
        assertEquals(t, PgTime.toInstant(PgTime.fromInstant(t)));
    }

    @Test
    void timesCoverTheServersWholeRange() {
        // timestamptz_send of '294276-12-31 23:59:59.999999+00' and '4714-11-24 00:00:00+00 BC'
        assertEquals(Instant.parse("+294276-12-31T23:59:59.999999Z"), PgTime.toInstant(0x7FFFFF5BB3B29FFFL));
        assertEquals(Instant.parse("-4713-11-24T00:00:00Z"), PgTime.toInstant(-211_813_488_000_000_000L));
    }

    @Test
    void wireBoundsChecks() {
        var buf = Unpooled.copiedBuffer("ab\0cd", StandardCharsets.UTF_8);
        assertEquals(2, Wire.cstringEnd(buf, 0, 5, "X", 0));
        MalformedMessageException e = assertThrows(MalformedMessageException.class, () -> Wire.cstringEnd(buf, 3, 5, "X", 0));
        assertEquals(3, e.offset());
        assertThrows(MalformedMessageException.class, () -> Wire.cstringEnd(buf, 5, 5, "X", 0));
        Wire.require(1, 4, 5, "X", 0, "f");
        assertThrows(MalformedMessageException.class, () -> Wire.require(2, 4, 5, "X", 0, "f"));
        assertThrows(MalformedMessageException.class, () -> Wire.require(0, -1, 5, "X", 0, "f"));
        assertEquals("cd", Wire.utf8(buf, 3, 5));
    }
}
