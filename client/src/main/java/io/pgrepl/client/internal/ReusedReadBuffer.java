package io.pgrepl.client.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.DefaultMaxMessagesRecvByteBufAllocator;
import java.nio.ByteBuffer;

/**
 * The connection's receive allocator: every socket read goes into one direct buffer of a fixed
 * size, kept by the channel and handed out again as soon as the reader has released it.
 *
 * <p>Why not Netty's default: {@link BackendFrameDecoder} copies each direct read into its own heap
 * cumulation and releases it at once, so a read buffer lives for one {@code channelRead}. Netty's
 * adaptive receive sizing and pooled allocator then do a lot of work for nothing, and on a default
 * JVM that work is compiled: the allocator's {@code allocate} was the largest C2 compilation left in
 * a drain's profile. One reused buffer costs a reference-count check per read.
 *
 * <p>The buffer wraps a JDK direct {@link ByteBuffer}: releasing the wrapper never frees the memory,
 * the garbage collector does once the channel is gone, so a channel that closes without reading
 * again leaks nothing and no hook is needed. A reader that keeps a read (the TLS handler holding a
 * partial record) gets a buffer of the channel's own allocator for the next one instead; the kept
 * one is used again once released.
 */
public final class ReusedReadBuffer extends DefaultMaxMessagesRecvByteBufAllocator {
    /** The size Netty's adaptive sizing grows to at most: a walsender's stream fills it. */
    public static final int DEFAULT_SIZE = 64 * 1024;
    /** Netty's default for stream channels: reads per read loop before other channels get a turn. */
    private static final int READS_PER_LOOP = 16;

    private final int size;

    /**
     * An allocator handing out buffers of {@code size} bytes.
     *
     * @param size bytes per read
     * @throws IllegalArgumentException for a size below 64
     */
    public ReusedReadBuffer(int size) {
        super(READS_PER_LOOP);
        if (size < 64) throw new IllegalArgumentException("read buffer size " + size);
        this.size = size;
    }

    @Override
    public Handle newHandle() {
        return new ReusingHandle();
    }

    /** One per channel, used on its event loop only. */
    private final class ReusingHandle extends MaxMessageHandle {
        /** Ours, at a reference count of 1 while no reader holds it. */
        private ByteBuf kept;

        @Override
        public ByteBuf allocate(ByteBufAllocator alloc) {
            ByteBuf b = kept;
            if (b == null) {
                b = Unpooled.wrappedBuffer(ByteBuffer.allocateDirect(size));
                kept = b;
            } else if (b.refCnt() != 1) {
                return alloc.ioBuffer(size); // still held by its reader
            }
            return b.clear().retain();
        }

        @Override
        public int guess() {
            return size;
        }
    }
}
