package io.pgrepl.codec.replication;

import static org.junit.jupiter.api.Assertions.*;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.pgrepl.codec.MalformedMessageException;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class ReplicationMessagesTest {
    static ByteBuf hex(String hex) {
        String h = hex.replaceAll("\\s+", "");
        byte[] b = new byte[h.length() / 2];
        for (int i = 0; i < b.length; i++) b[i] = (byte) Integer.parseInt(h.substring(2 * i, 2 * i + 2), 16);
        return Unpooled.wrappedBuffer(b);
    }

    @Test
    void xlogDataHeaderAndDataSlice() {
        ByteBuf b = hex("77 0000000001A2B3C8 0000000001A2B400 0000000000000001 45");
        XLogData x = new XLogData().wrap(b);
        assertEquals(0x1A2B3C8L, x.walStart());
        assertEquals(0x1A2B400L, x.walEnd());
        assertEquals(Instant.parse("2000-01-01T00:00:00.000001Z"), x.sendTime());
        assertEquals(1, x.dataLength());
        assertEquals(25, x.dataIndex());
        assertEquals('E', x.data().getByte(0));
        assertSame(b, x.data().unwrap(), "data() must be a view, not a copy");
    }

    @Test
    void xlogDataWithEmptyDataIsValidAndTruncationIsTyped() {
        assertEquals(0, new XLogData().wrap(hex("77" + "00".repeat(24))).dataLength());
        MalformedMessageException e = assertThrows(MalformedMessageException.class, () -> new XLogData().wrap(hex("77" + "00".repeat(23))));
        assertTrue(e.getMessage().contains("XLogData"));
        assertThrows(MalformedMessageException.class, () -> new XLogData().wrap(hex("6B" + "00".repeat(30))));
        assertThrows(MalformedMessageException.class, () -> new XLogData().wrap(Unpooled.EMPTY_BUFFER));
    }

    @Test
    void keepalive() {
        PrimaryKeepalive k = new PrimaryKeepalive().wrap(hex("6B 0000000100000010 FFFFFFFFFFFFFFFF 01"));
        assertEquals(0x1_0000_0010L, k.walEnd());
        assertEquals(-1, k.sendTimeMicros());
        assertTrue(k.replyRequested());
        assertFalse(new PrimaryKeepalive().wrap(hex("6B" + "00".repeat(17))).replyRequested());
        assertThrows(MalformedMessageException.class, () -> new PrimaryKeepalive().wrap(hex("6B" + "00".repeat(16))));
    }

    @Test
    void standbyStatusUpdateLayout() {
        ByteBuf out = Unpooled.buffer(0);
        StandbyStatusUpdate.encode(out, 0x10, 0x20, 0x30, 0x40, true);
        assertEquals(34, out.readableBytes());
        assertEquals("72" + "0000000000000010" + "0000000000000020" + "0000000000000030" + "0000000000000040" + "01",
                ByteBufUtil.hexDump(out));
    }

    @Test
    void hotStandbyFeedbackLayout() {
        ByteBuf out = Unpooled.buffer();
        HotStandbyFeedback.encode(out, 1, 2, 3, 4, 5);
        assertEquals(25, out.readableBytes());
        assertEquals("68" + "0000000000000001" + "00000002" + "00000003" + "00000004" + "00000005", ByteBufUtil.hexDump(out));
    }
}
