package io.pgrepl.client.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.buffer.WrappedByteBuf;
import java.util.concurrent.atomic.AtomicInteger;
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

    /**
     * A parent in a leak-detection wrapper (what Netty's detector gives for a sample of buffers):
     * the view reads the bytes inside it, at the frame's indices and within its bounds, while
     * retain and release still go through the wrapper, which is where the leak record lives.
     */
    @ParameterizedTest
    @ValueSource(booleans = {false, true})
    void readsInsideALeakWrapperButCountsReferencesThroughIt(boolean direct) {
        ByteBuf inner = parent(direct);
        AtomicInteger retains = new AtomicInteger();
        AtomicInteger releases = new AtomicInteger();
        ByteBuf wrapper = new WrappedByteBuf(inner) {
            @Override
            public ByteBuf retain() {
                retains.incrementAndGet();
                return super.retain();
            }

            @Override
            public boolean release() {
                releases.incrementAndGet();
                return super.release();
            }
        };
        FrameView v = new FrameView().reset(wrapper, 7, 5);
        assertEquals('f', v.getByte(0));
        assertEquals('e', v.getByte(4));
        assertEquals('f', v.readByte());
        assertEquals(1, v.readerIndex());
        assertEquals(0x72616d65, v.getInt(1)); // "rame"
        assertEquals("frame", v.toString(0, 5, StandardCharsets.US_ASCII));
        assertThrows(IndexOutOfBoundsException.class, () -> v.getByte(5)); // '|' follows the frame
        assertThrows(IndexOutOfBoundsException.class, () -> v.getInt(2));
        v.retain();
        assertEquals(1, retains.get());
        assertEquals(2, inner.refCnt());
        v.release();
        assertTrue(wrapper.release());
        assertEquals(2, releases.get());
        assertEquals(0, inner.refCnt());
    }
}
