package io.pgrepl.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiConsumer;
import org.junit.jupiter.api.Test;

/** Exact pausing, end of stream, buffer ownership and the reusable payload view. */
class BackendFrameDecoderFlowTest {
    private final List<String> events = new ArrayList<>();
    private int transportReads;
    private EmbeddedChannel ch;

    /** Pipeline: read counter (head side), decoder, inactive recorder. */
    private EmbeddedChannel channel(BiConsumer<Byte, ByteBuf> extra) {
        ch = new EmbeddedChannel();
        ch.pipeline().addLast("reads", new ChannelOutboundHandlerAdapter() {
            @Override
            public void read(ChannelHandlerContext ctx) throws Exception {
                transportReads++;
                super.read(ctx);
            }
        });
        ch.pipeline().addLast("frames", new BackendFrameDecoder((type, payload) -> {
            events.add((char) type + ":" + payload.toString(StandardCharsets.US_ASCII));
            extra.accept(type, payload);
        }, 1024));
        ch.pipeline().addLast(new ChannelInboundHandlerAdapter() {
            @Override
            public void channelInactive(ChannelHandlerContext ctx) {
                events.add("inactive");
            }
        });
        return ch;
    }

    /** A pooled (Netty's default allocator) buffer holding the given frames. */
    private static ByteBuf frames(String... typeAndPayload) {
        ByteBuf b = ByteBufAllocator.DEFAULT.buffer();
        for (String s : typeAndPayload) {
            byte[] p = s.substring(1).getBytes(StandardCharsets.US_ASCII);
            b.writeByte(s.charAt(0)).writeInt(4 + p.length).writeBytes(p);
        }
        return b;
    }

    private void pauseOn(char type, byte t) {
        if (t == type) ch.config().setAutoRead(false);
    }

    @Test
    void pauseAfterTheFirstFrameHoldsTheRestUntilResume() {
        channel((t, p) -> pauseOn('a', t));
        ch.writeInbound(frames("aone", "btwo", "cthree"));
        assertEquals(List.of("a:one"), events, "a paused sink must get nothing more");
        int before = transportReads;
        ch.config().setAutoRead(true); // Netty turns this into channel.read(), which passes the decoder
        assertEquals(List.of("a:one", "b:two", "c:three"), events);
        assertEquals(before + 1, transportReads, "once the buffer is empty the socket is asked for more");
    }

    @Test
    void eachReadWhilePausedDeliversOneBufferedFrameWithoutTouchingTheSocket() {
        channel((t, p) -> ch.config().setAutoRead(false));
        ch.config().setAutoRead(false);
        ch.writeInbound(frames("aone", "btwo", "cthree"));
        assertEquals(List.of("a:one"), events);
        int before = transportReads;
        ch.read();
        assertEquals(List.of("a:one", "b:two"), events);
        ch.read();
        assertEquals(List.of("a:one", "b:two", "c:three"), events);
        assertEquals(before, transportReads, "served from the buffer");
        ch.read();
        assertEquals(before + 1, transportReads, "nothing buffered: the read goes to the transport");
    }

    @Test
    void frameSplitAcrossReadsWhilePausedWaitsForItsTail() {
        channel((t, p) -> pauseOn('a', t));
        ByteBuf all = frames("aone", "btwo", "cthree");
        ch.writeInbound(all.readRetainedSlice(12)); // "aone" (9 bytes) + 3 bytes of "btwo"
        assertEquals(List.of("a:one"), events);
        ch.config().setAutoRead(true);
        assertEquals(List.of("a:one"), events, "an incomplete frame is not delivered");
        ch.writeInbound(all);
        assertEquals(List.of("a:one", "b:two", "c:three"), events);
    }

    @Test
    void resumingInsideTheSinkKeepsDrainingInOrder() {
        channel((t, p) -> {
            if (t == 'b') ch.config().setAutoRead(true); // e.g. a stream ending re-enables reading
        });
        ch.config().setAutoRead(false);
        ch.writeInbound(frames("aone", "btwo", "cthree", "dfour"));
        assertEquals(List.of("a:one"), events);
        ch.read();
        assertEquals(List.of("a:one", "b:two", "c:three", "d:four"), events);
    }

    @Test
    void peerCloseDeliversBufferedFramesBeforeInactiveEvenWhenPaused() {
        channel((t, p) -> pauseOn('d', t));
        ByteBuf in = frames("dcopy1", "dcopy2", "EFATAL", "Zpartial");
        in.writerIndex(in.writerIndex() - 2); // the last frame is cut short by the close
        ch.writeInbound(in);
        assertEquals(List.of("d:copy1"), events);
        ch.unsafe().close(ch.voidPromise()); // as the transport does on EOF: not through the pipeline
        assertEquals(List.of("d:copy1", "d:copy2", "E:FATAL", "inactive"), events);
        assertEquals(0, in.refCnt(), "cumulation released");
    }

    @Test
    void localCloseDropsBufferedFramesAndReleasesThem() {
        channel((t, p) -> pauseOn('a', t));
        ByteBuf in = frames("aone", "btwo");
        ch.writeInbound(in);
        ch.close();
        assertEquals(List.of("a:one", "inactive"), events);
        assertEquals(0, in.refCnt());
    }

    @Test
    void removalReleasesTheCumulation() {
        channel((t, p) -> pauseOn('a', t));
        ByteBuf in = frames("aone", "btwo");
        ch.writeInbound(in);
        ch.pipeline().remove("frames");
        assertEquals(0, in.refCnt());
    }

    @Test
    void payloadIsOneReusedViewBoundedToItsFrame() {
        List<ByteBuf> seen = new ArrayList<>();
        channel((t, p) -> {
            seen.add(p);
            assertEquals(p.readableBytes(), p.capacity());
            assertThrows(IndexOutOfBoundsException.class, () -> p.getByte(p.capacity()), "must not reach the next frame");
            assertThrows(IndexOutOfBoundsException.class, () -> p.getInt(p.capacity() - 3));
            assertThrows(IndexOutOfBoundsException.class, () -> p.getLong(-1));
            assertEquals(p.getByte(0), p.readByte());
            p.readerIndex(p.writerIndex() - 1);
            assertThrows(IndexOutOfBoundsException.class, p::readShort);
            byte last = p.getByte(p.capacity() - 1);
            int first = 0;
            while (p.getByte(first) != last) first++;
            assertEquals(first, p.forEachByte(0, p.capacity(), b -> b != last),
                    "indices found by forEachByte are the view's, not the cumulation's");
        });
        ch.writeInbound(frames("aone", "btwo", "cthree"));
        assertEquals(3, seen.size());
        assertSame(seen.get(0), seen.get(1), "no object per frame");
        assertSame(seen.get(1), seen.get(2));
    }

    @Test
    void aRetainedPayloadSurvivesLaterFramesAndIsFreedOnRelease() {
        List<ByteBuf> kept = new ArrayList<>();
        List<ByteBuf> seen = new ArrayList<>();
        channel((t, p) -> {
            seen.add(p);
            if (t == 'b') kept.add(p.retain());
            if (t == 'c') kept.add(p.readRetainedSlice(2));
            if (t == 'd') kept.add(p.duplicate().retain());
        });
        ByteBuf first = frames("aone", "btwo", "cthree", "dfour", "epart");
        first.writerIndex(first.writerIndex() - 1);
        ch.writeInbound(first);
        ByteBuf second = frames("x", "fsix");
        second.setByte(0, 't'); // the tail of "epart"
        second.writerIndex(1);
        ByteBuf rest = frames("fsix");
        ch.writeInbound(second, rest); // appends after what the kept views point at
        assertEquals(List.of("a:one", "b:two", "c:three", "d:four", "e:part", "f:six"), events);
        assertSame(seen.get(0), seen.get(1));
        assertNotSame(seen.get(1), seen.get(2), "the retained view is not reused");
        assertEquals("two", kept.get(0).toString(StandardCharsets.US_ASCII));
        assertEquals("th", kept.get(1).toString(StandardCharsets.US_ASCII));
        assertEquals("four", kept.get(2).toString(StandardCharsets.US_ASCII));
        // A direct read is copied into the decoder's own heap buffer: that is what the views hold.
        assertEquals(0, first.refCnt(), "the direct read buffer is released once copied");
        ByteBuf held = kept.get(0).unwrap();
        assertTrue(held.hasArray());
        assertTrue(held.refCnt() > 0);
        for (ByteBuf k : kept) k.release();
        assertEquals(0, held.refCnt(), "the last holder frees the buffer the views pointed into");
    }

    @Test
    void afterAMalformedLengthLaterBytesAreDroppedNotReparsed() {
        channel((t, p) -> { });
        ByteBuf bad = ByteBufAllocator.DEFAULT.buffer().writeByte('Z').writeInt(3).writeByte('I');
        assertThrows(io.pgrepl.codec.MalformedMessageException.class, () -> ch.writeInbound(bad));
        ByteBuf later = frames("aone");
        ch.writeInbound(later); // framing is lost: no second error, no bogus frame
        assertEquals(List.of(), events);
        assertEquals(0, later.refCnt());
        ch.read(); // resuming must not raise the error again either
        ch.checkException();
    }
}
