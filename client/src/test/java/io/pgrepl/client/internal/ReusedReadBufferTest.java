package io.pgrepl.client.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.RecvByteBufAllocator;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ReusedReadBufferTest {
    private static final ByteBufAllocator OTHER = new UnpooledByteBufAllocator(false);

    @Test
    void aReleasedBufferIsHandedOutAgainEmptyAndAHeldOneIsNot() {
        RecvByteBufAllocator.Handle h = new ReusedReadBuffer(1024).newHandle();
        ByteBuf first = h.allocate(OTHER);
        assertEquals(1024, first.capacity());
        assertTrue(first.isDirect());
        first.writeBytes(new byte[] {1, 2, 3});
        first.release();

        ByteBuf again = h.allocate(OTHER);
        assertSame(first, again);
        assertEquals(0, again.readableBytes(), "a reused buffer starts empty");
        assertEquals(0, again.writerIndex());

        // The reader keeps it (a TLS handler holding a partial record): the next read gets another buffer.
        ByteBuf meanwhile = h.allocate(OTHER);
        assertNotSame(again, meanwhile);
        assertEquals(1024, meanwhile.capacity());
        meanwhile.release();
        assertEquals(0, meanwhile.refCnt(), "a stand-in buffer is the reader's alone");

        again.release();
        assertSame(first, h.allocate(OTHER), "once released, the kept buffer is used again");
        assertEquals(1024, h.guess());
    }

    @Test
    void tooSmallASizeIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new ReusedReadBuffer(63));
    }

    /** A real channel on the library's transport: every byte arrives in order, through one buffer. */
    @Test
    void aChannelReadsAStreamThroughOneBuffer() throws Exception {
        byte[] sent = new byte[3 * 1024 * 1024 + 17];
        new Random(22).nextBytes(sent);
        assertEquals(1, read(sent, false).distinct, "every read went into the same buffer");
    }

    /** A reader that holds every read until the next one arrives still sees every byte in order. */
    @Test
    void aReaderHoldingReadsGetsOtherBuffersAndLosesNothing() throws Exception {
        byte[] sent = new byte[1024 * 1024];
        new Random(7).nextBytes(sent);
        Received r = read(sent, true);
        assertTrue(r.distinct > 1, "a held buffer was not handed out again: " + r.distinct);
    }

    private record Received(int distinct) {}

    private static Received read(byte[] sent, boolean holdPrevious) throws Exception {
        EventLoopGroup group = Transports.newGroup(1, "reused-read-test");
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            Set<ByteBuf> buffers = Collections.newSetFromMap(new IdentityHashMap<>());
            CompletableFuture<Void> closed = new CompletableFuture<>();
            Channel ch = new Bootstrap().group(group).channel(Transports.channelType(group))
                    .option(ChannelOption.RCVBUF_ALLOCATOR, new ReusedReadBuffer(8 * 1024))
                    .handler(new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel c) {
                            c.pipeline().addLast(new ChannelInboundHandlerAdapter() {
                                ByteBuf held;

                                @Override
                                public void channelRead(ChannelHandlerContext ctx, Object msg) {
                                    ByteBuf b = (ByteBuf) msg;
                                    buffers.add(b);
                                    byte[] chunk = new byte[b.readableBytes()];
                                    b.getBytes(b.readerIndex(), chunk);
                                    got.writeBytes(chunk);
                                    if (held != null) held.release();
                                    held = null;
                                    if (holdPrevious) held = b;
                                    else b.release();
                                }

                                @Override
                                public void channelInactive(ChannelHandlerContext ctx) {
                                    if (held != null) held.release();
                                    closed.complete(null);
                                }
                            });
                        }
                    })
                    .connect(server.getInetAddress(), server.getLocalPort()).sync().channel();
            try (Socket s = server.accept(); OutputStream out = s.getOutputStream()) {
                for (int off = 0; off < sent.length; off += 5000) out.write(sent, off, Math.min(5000, sent.length - off));
            }
            closed.get(30, TimeUnit.SECONDS);
            ch.close().sync();
            assertArrayEquals(sent, got.toByteArray());
            return new Received(buffers.size());
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
    }
}
