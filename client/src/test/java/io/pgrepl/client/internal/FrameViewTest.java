package io.pgrepl.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A frame view never reads the bytes around its frame, whatever AbstractByteBuf path is taken. */
class FrameViewTest {
    /** The frame "frame" at index 7 of a heap parent, itself at array offset 0 or 3 (a slice). */
    private static ByteBuf parent(boolean slicedParent) {
        byte[] bytes = "xyzBEFORE|frame|AFTER".getBytes(StandardCharsets.US_ASCII);
        ByteBuf b = Unpooled.wrappedBuffer(bytes);
        return slicedParent ? b.slice(3, bytes.length - 3) : b.skipBytes(3).discardReadBytes();
    }

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void stringReadsStayInsideTheFrame(boolean slicedParent) {
        ByteBuf p = parent(slicedParent);
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

    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void numbersAreBigEndianFromTheFramesFirstByte(boolean slicedParent) {
        byte[] bytes = {9, 9, 9, (byte) 0x80, 1, 2, 3, 4, 5, 6, (byte) 0xff, 9};
        ByteBuf b = Unpooled.wrappedBuffer(bytes);
        ByteBuf p = slicedParent ? b.slice(1, 11) : b;
        int at = slicedParent ? 2 : 3;
        FrameView v = new FrameView().reset(p, at, 8);
        assertEquals((byte) 0x80, v.getByte(0));
        assertEquals(0x80, v.getUnsignedByte(0));
        assertEquals((short) 0x8001, v.getShort(0));
        assertEquals(0x8001, v.getUnsignedShort(0));
        assertEquals(0x80010203, v.getInt(0));
        assertEquals(0x80010203L, v.getUnsignedInt(0));
        assertEquals(0x0405_06ffL, v.getUnsignedInt(4));
        assertEquals(0x80010203_040506ffL, v.getLong(0));
        assertEquals(0x80010203_040506ffL, v.readLong());
        v.readerIndex(0);
        assertEquals(0x80010203, v.readInt());
        assertEquals(0x0405, v.readUnsignedShort());
        assertEquals(6, v.readByte());
        assertEquals(0xff, v.readUnsignedByte());
        assertThrows(IndexOutOfBoundsException.class, v::readByte, "the 9 after the frame is not the frame's");
        assertThrows(IndexOutOfBoundsException.class, () -> v.getLong(1));
        assertThrows(IndexOutOfBoundsException.class, () -> v.getShort(-1));
        assertSame(bytes, v.array());
        assertEquals(3, v.arrayOffset());
    }

    @org.junit.jupiter.api.Test
    void aParentWithoutAnArrayIsRefused() {
        ByteBuf p = Unpooled.directBuffer(8).writeLong(1);
        try {
            assertThrows(UnsupportedOperationException.class, () -> new FrameView().reset(p, 0, 8));
        } finally {
            p.release();
        }
    }
}
