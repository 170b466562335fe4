package io.pgrepl.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A frame view never reads the bytes around its frame, whatever AbstractByteBuf path is taken. */
class FrameViewTest {
    private static ByteBuf parent(boolean direct) {
        byte[] bytes = "BEFORE|frame|AFTER".getBytes(StandardCharsets.US_ASCII);
        ByteBuf b = direct ? Unpooled.directBuffer(bytes.length) : Unpooled.buffer(bytes.length);
        return b.writeBytes(bytes);
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void stringReadsStayInsideTheFrame(boolean direct) {
        ByteBuf p = parent(direct);
        try {
            FrameView v = new FrameView().reset(p, 7, 5);
            assertEquals("frame", v.toString(StandardCharsets.UTF_8));
            assertEquals("ram", v.toString(1, 3, StandardCharsets.US_ASCII));
            assertThrows(IndexOutOfBoundsException.class, () -> v.toString(0, 11, StandardCharsets.UTF_8));
            assertThrows(IndexOutOfBoundsException.class, () -> v.toString(3, 3, StandardCharsets.US_ASCII));
            assertThrows(IndexOutOfBoundsException.class, () -> v.toString(-7, 7, StandardCharsets.UTF_8));
            assertThrows(IndexOutOfBoundsException.class, () -> v.getCharSequence(0, 8, StandardCharsets.US_ASCII));
            assertThrows(IndexOutOfBoundsException.class, () -> v.getCharSequence(0, 8, StandardCharsets.UTF_8));
            assertThrows(IndexOutOfBoundsException.class, () -> v.readCharSequence(6, StandardCharsets.UTF_8));
            assertThrows(IndexOutOfBoundsException.class, () -> v.indexOf(0, 10, (byte) 'A'));
            assertThrows(IndexOutOfBoundsException.class, () -> v.getBytes(2, new byte[4]));
            assertThrows(IndexOutOfBoundsException.class, () -> v.getShortLE(4));
            assertThrows(IndexOutOfBoundsException.class, () -> v.getCharSequence(0, 6, StandardCharsets.UTF_8));
            assertEquals(-1, v.indexOf(0, 5, (byte) '|'));
        } finally {
            p.release();
        }
    }
}
