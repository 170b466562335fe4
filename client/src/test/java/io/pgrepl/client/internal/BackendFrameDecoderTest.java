package io.pgrepl.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.pgrepl.codec.MalformedMessageException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BackendFrameDecoderTest {
    private final List<String> frames = new ArrayList<>();
    private final List<byte[]> arrays = new ArrayList<>();
    private final List<Integer> offsets = new ArrayList<>();

    private EmbeddedChannel channel(int max) {
        return new EmbeddedChannel(new BackendFrameDecoder((type, payload) -> {
            frames.add((char) type + ":" + payload.toString(StandardCharsets.US_ASCII));
            // Captured during the call: the slice is only valid until onFrame returns.
            arrays.add(payload.hasArray() ? payload.array() : null);
            offsets.add(payload.hasArray() ? payload.arrayOffset() + payload.readerIndex() : -1);
        }, max));
    }

    private static byte[] frame(char type, String payload) {
        byte[] p = payload.getBytes(StandardCharsets.US_ASCII);
        ByteBuf b = Unpooled.buffer().writeByte(type).writeInt(4 + p.length).writeBytes(p);
        byte[] out = new byte[b.readableBytes()];
        b.readBytes(out);
        return out;
    }

    private static byte[] concat(byte[]... parts) {
        ByteBuf b = Unpooled.buffer();
        for (byte[] p : parts) b.writeBytes(p);
        byte[] out = new byte[b.readableBytes()];
        b.readBytes(out);
        return out;
    }

    @Test
    void manyFramesInOneReadAreDeliveredInOrderAsSlicesOfTheInput() {
        EmbeddedChannel ch = channel(1024);
        byte[] bytes = concat(frame('Z', "I"), frame('C', "SELECT 1\0"), frame('c', ""));
        ch.writeInbound(Unpooled.wrappedBuffer(bytes));
        assertEquals(List.of("Z:I", "C:SELECT 1\0", "c:"), frames);
        // Zero copy: the first payload is a view of the very array that came off the socket.
        assertSame(bytes, arrays.get(0));
        assertEquals(5, offsets.get(0));
        assertSame(bytes, arrays.get(1));
        assertEquals(6 + 5, offsets.get(1));
        assertFalse(ch.finish());
    }

    @Test
    void frameSplitAcrossReadsIsDeliveredOnceComplete() {
        EmbeddedChannel ch = channel(1024);
        byte[] f = concat(frame('D', "abcdef"), frame('Z', "T"));
        for (int i = 0; i < f.length; i++) {
            ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {f[i]}));
            if (i < 10) assertTrue(frames.isEmpty(), "delivered early at byte " + i);
        }
        assertEquals(List.of("D:abcdef", "Z:T"), frames);
    }

    @Test
    void lengthBelowFourIsMalformed() {
        EmbeddedChannel ch = channel(1024);
        MalformedMessageException e = assertThrows(MalformedMessageException.class,
                () -> ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {'Z', 0, 0, 0, 3, 'I'})));
        assertTrue(e.getMessage().contains("frame length 3"), e.getMessage());
        assertTrue(frames.isEmpty());
    }

    @Test
    void lengthAboveMaximumFailsAsSoonAsTheHeaderArrives() {
        EmbeddedChannel ch = channel(1024);
        // Only the 5-byte header: a hostile length must not make us wait for (or buffer) 2 GB.
        MalformedMessageException e = assertThrows(MalformedMessageException.class,
                () -> ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {'d', 0x7f, (byte) 0xff, (byte) 0xff, (byte) 0xff})));
        assertEquals("CopyData", e.messageType());
        assertTrue(frames.isEmpty());
    }

    @Test
    void frameOfExactlyMaximumIsAccepted() {
        EmbeddedChannel ch = channel(64);
        String payload = "x".repeat(64 - 5);
        ch.writeInbound(Unpooled.wrappedBuffer(frame('d', payload)));
        assertEquals(List.of("d:" + payload), frames);
        frames.clear();
        assertThrows(MalformedMessageException.class, () -> ch.writeInbound(Unpooled.wrappedBuffer(frame('d', payload + "y"))));
    }

    private static ByteBuf direct(byte[] bytes) {
        return Unpooled.directBuffer(bytes.length).writeBytes(bytes);
    }

    @Test
    void directReadsAreCopiedIntoOneHeapBufferReusedFromReadToRead() {
        EmbeddedChannel ch = channel(1024);
        List<ByteBuf> reads = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ByteBuf in = direct(concat(frame('d', "r" + i + "a"), frame('d', "r" + i + "b")));
            reads.add(in);
            ch.writeInbound(in);
        }
        assertEquals(List.of("d:r0a", "d:r0b", "d:r1a", "d:r1b", "d:r2a", "d:r2b"), frames);
        for (ByteBuf in : reads) assertEquals(0, in.refCnt(), "each direct read is released once copied");
        assertTrue(arrays.get(0) != null, "the payload is array-backed");
        for (byte[] a : arrays) assertTrue(arrays.get(0) == a, "one heap buffer, no allocation per read");
        assertEquals(List.of(5, 5 + 8, 5, 5 + 8, 5, 5 + 8), offsets);
        assertFalse(ch.finish());
    }

    @Test
    void aFrameSplitBetweenAHeapReadAndADirectOneIsWhole() {
        EmbeddedChannel ch = channel(1024);
        byte[] f = concat(frame('Z', "I"), frame('D', "split-here"), frame('C', "x"));
        byte[] heapPart = java.util.Arrays.copyOfRange(f, 0, 12);
        ch.writeInbound(Unpooled.wrappedBuffer(heapPart));
        assertEquals(List.of("Z:I"), frames);
        assertSame(heapPart, arrays.get(0), "a heap read with nothing left over is used as it came");
        ByteBuf tail = direct(java.util.Arrays.copyOfRange(f, 12, f.length));
        ch.writeInbound(tail);
        assertEquals(List.of("Z:I", "D:split-here", "C:x"), frames);
        assertEquals(0, tail.refCnt());
        assertTrue(arrays.get(1) != heapPart, "the leftover moved into the decoder's own buffer");
        assertFalse(ch.finish());
    }

    /**
     * The steady state allocates nothing per frame and no buffer per read: one reused view, one reused
     * heap cumulation (measured with the JVM's per-thread allocation counter, not a timing).
     */
    @Test
    void directReadsAllocateNothingPerFrameOrPerRead() {
        java.lang.management.ThreadMXBean bean = java.lang.management.ManagementFactory.getThreadMXBean();
        org.junit.jupiter.api.Assumptions.assumeTrue(bean instanceof com.sun.management.ThreadMXBean);
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) bean;
        org.junit.jupiter.api.Assumptions.assumeTrue(mx.isThreadAllocatedMemorySupported() && mx.isThreadAllocatedMemoryEnabled());
        long[] sum = {0};
        int[] count = {0};
        EmbeddedChannel ch = new EmbeddedChannel(new BackendFrameDecoder((type, payload) -> {
            count[0]++;
            sum[0] += payload.getInt(0) + payload.getLong(4);
        }, 1024));
        byte[] oneRead = new byte[0];
        for (int i = 0; i < 100; i++) oneRead = concat(oneRead, frame('d', "0123456789abcdef" + (char) ('a' + i % 26)));
        int reads = 1000;
        ByteBuf[] warm = new ByteBuf[reads];
        ByteBuf[] measured = new ByteBuf[reads];
        for (int i = 0; i < reads; i++) {
            warm[i] = direct(oneRead);
            measured[i] = direct(oneRead);
        }
        for (ByteBuf b : warm) {
            ch.pipeline().fireChannelRead(b);
            ch.pipeline().fireChannelReadComplete();
        }
        long tid = Thread.currentThread().getId();
        long before = mx.getThreadAllocatedBytes(tid);
        for (ByteBuf b : measured) {
            ch.pipeline().fireChannelRead(b);
            ch.pipeline().fireChannelReadComplete();
        }
        long allocated = mx.getThreadAllocatedBytes(tid) - before;
        assertEquals(2 * reads * 100, count[0], "every frame delivered");
        // ~24 B per read remain outside the decoder (the test's direct buffers being copied from and
        // freed); a view per frame would be ~100 x 48 B per read, a cumulation per read 64 KiB.
        assertTrue(allocated < reads * 64L, "allocated " + allocated + " bytes over " + reads + " reads of 100 frames");
        assertFalse(ch.finish());
    }
}
