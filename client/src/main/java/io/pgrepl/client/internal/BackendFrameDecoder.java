package io.pgrepl.client.internal;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledHeapByteBuf;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.pgrepl.client.protocol.FrameTooLargeException;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.backend.BackendMessage;

/**
 * Splits the byte stream into backend frames (Byte1 type, Int32 length including itself,
 * payload) and hands each payload to a {@link FrameSink} as a view of the cumulation buffer:
 * nothing is allocated per frame in the steady state (one reusable {@link FrameView}).
 *
 * <p>The cumulation is always array-backed: a heap read is used as it came (zero copy) while no
 * bytes are left over from the previous one; anything else (a direct read from the socket, a
 * read that completes a split frame) is copied once into a heap buffer of the decoder's own,
 * which is kept and reused from read to read. The frame view then reads one {@code byte[]}, and
 * the code that inlined its getters is not recompiled whenever the allocator hands out another
 * buffer class (pooled, adaptive, a sampled leak-detection wrapper).
 *
 * <p>The payload is valid only for the duration of {@link FrameSink#onFrame}; a sink that keeps
 * it calls {@code retain()} (the decoder then stops reusing that view object, and the cumulator
 * copies instead of appending in place), or keeps a {@code retainedSlice()}. The length is
 * checked as soon as the 5-byte header is in, so a hostile length fails at once instead of
 * making us buffer up to it.
 *
 * <p>Pausing is exact: once the channel's autoRead is off (a sink applying backpressure), no
 * further frame is delivered, even if whole frames are already buffered; they are delivered when
 * reading is requested again ({@code setAutoRead(true)} and {@code read()} both pass through
 * {@link #read}). An explicit {@code read()} while still paused delivers one buffered frame.
 * At end of stream (the peer closed), every complete frame still buffered is delivered, pause or
 * not, before {@code channelInactive} goes on: a FATAL ErrorResponse or the last CopyData behind
 * paused frames must not be lost, and nobody would resume a dead connection. After a close
 * <em>we</em> asked for, buffered frames are dropped, as before.
 */
public final class BackendFrameDecoder extends ChannelDuplexHandler {
    /** The default largest frame, 256 MiB: PostgreSQL's own limit on one field value is 1 GB. */
    public static final int DEFAULT_MAX_FRAME_SIZE = 256 * 1024 * 1024;
    /** First size of the decoder's own cumulation: one socket read of Netty's adaptive sizing, at most. */
    private static final int INITIAL_CUMULATION = 64 * 1024;
    /** A larger emptied buffer (grown for a large frame) is dropped rather than kept for reuse. */
    private static final int MAX_SPARE = 1024 * 1024;

    /** Receives frames in order, on the event loop. */
    public interface FrameSink {
        /**
         * One frame.
         *
         * @param type    the message type byte
         * @param payload the body after the length word, valid only during the call unless retained
         * @throws Exception to fail the connection
         */
        void onFrame(byte type, ByteBuf payload) throws Exception;

        /**
         * The end of one read from the socket (Netty's read loop, up to several reads, is over),
         * after every complete frame of it was delivered.
         *
         * @param bytesRead the bytes that read brought in
         */
        default void onReadComplete(int bytesRead) {}
    }

    private final FrameSink sink;
    private final int maxFrameSize;
    /** Buffered bytes, always array-backed: a heap read as it came, or one of our own. */
    private ByteBuf cumulation;
    /** Whether {@link #cumulation} is the decoder's own buffer (appended to in place). */
    private boolean cumulationOwn;
    /** The decoder's own buffer, emptied and kept for the next read when no sink holds it. */
    private ByteBuf spare;
    private FrameView view = new FrameView();
    private boolean draining;
    private boolean closeRequested;
    private boolean broken;
    /** Bytes read since the last channelReadComplete. */
    private int bytesRead;

    /**
     * A decoder passing frames to {@code sink}.
     *
     * @param sink         receives the frames
     * @param maxFrameSize the largest frame accepted (type byte, length word and payload)
     * @throws IllegalArgumentException for a limit below 5
     */
    public BackendFrameDecoder(FrameSink sink, int maxFrameSize) {
        if (maxFrameSize < 5) throw new IllegalArgumentException("maxFrameSize " + maxFrameSize);
        this.sink = sink;
        this.maxFrameSize = maxFrameSize;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (!(msg instanceof ByteBuf in)) {
            ctx.fireChannelRead(msg);
            return;
        }
        bytesRead += in.readableBytes();
        if (broken) {
            in.release(); // framing is lost for good; the error has been raised once already
            return;
        }
        cumulate(ctx, in);
        if (draining) return; // a sink made the transport read inline: the outer loop goes on
        try {
            drain(ctx, false);
        } finally {
            compact();
        }
    }

    /** Appends {@code in} to the cumulation, which stays array-backed; releases {@code in}. */
    private void cumulate(ChannelHandlerContext ctx, ByteBuf in) {
        if (cumulation == null && in.hasArray()) {
            cumulation = in;
            cumulationOwn = false;
            return;
        }
        try {
            int n = in.readableBytes();
            if (cumulation == null) {
                cumulation = spare != null ? spare : own(ctx, n);
                spare = null;
                cumulationOwn = true;
            } else if (!cumulationOwn || cumulation.refCnt() != 1) {
                // A heap read used as it came, or a buffer a sink still holds: what is left moves
                // into one of our own instead of being appended to behind the sink's back.
                ByteBuf fresh = own(ctx, cumulation.readableBytes() + n);
                fresh.writeBytes(cumulation);
                cumulation.release();
                cumulation = fresh;
                cumulationOwn = true;
            }
            cumulation.writeBytes(in);
        } finally {
            in.release();
        }
    }

    private static ByteBuf own(ChannelHandlerContext ctx, int atLeast) {
        return new UnpooledHeapByteBuf(ctx.alloc(), Math.max(INITIAL_CUMULATION, atLeast), Integer.MAX_VALUE - 8);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) throws Exception {
        int n = bytesRead;
        bytesRead = 0;
        sink.onReadComplete(n);
        ctx.fireChannelReadComplete();
    }

    /** Reading resumes: buffered frames first; the socket is asked for more only if they ran out. */
    @Override
    public void read(ChannelHandlerContext ctx) throws Exception {
        if (cumulation != null && !draining) {
            int delivered;
            try {
                delivered = drain(ctx, false);
            } catch (Throwable t) {
                compact();
                ctx.fireExceptionCaught(t);
                return;
            }
            compact();
            if (delivered > 0 && !ctx.channel().config().isAutoRead()) return; // paused again
        }
        ctx.read();
    }

    /** Delivers complete frames; stops after a frame that left autoRead off, unless at EOF. */
    private int drain(ChannelHandlerContext ctx, boolean eof) throws Exception {
        ByteBuf buf = cumulation;
        int delivered = 0;
        draining = true;
        try {
            while (buf.readableBytes() >= 5 && (eof ? !closeRequested : ctx.channel().isOpen())) {
                int start = buf.readerIndex();
                byte type = buf.getByte(start);
                int length = buf.getInt(start + 1);
                if (length < 4 || length > maxFrameSize - 1) {
                    broken = true;
                    buf.skipBytes(buf.readableBytes());
                    if (length < 4) {
                        throw new MalformedMessageException(BackendMessage.name(type), 1,
                                "frame length " + length + " below the minimum of 4");
                    }
                    throw new FrameTooLargeException(BackendMessage.name(type), 1L + length, maxFrameSize);
                }
                if (buf.readableBytes() < 1 + length) break;
                buf.readerIndex(start + 1 + length);
                int refCnt = buf.refCnt();
                sink.onFrame(type, view.reset(buf, start + 5, length - 4));
                delivered++;
                if (buf.refCnt() != refCnt) view = new FrameView(); // the sink kept that one
                if (cumulation == null) break; // handler removed meanwhile
                buf = cumulation; // a sink that made the transport read inline may have grown it
                if (!eof && !ctx.channel().config().isAutoRead()) break;
            }
        } finally {
            draining = false;
        }
        return delivered;
    }

    private void compact() {
        ByteBuf buf = cumulation;
        if (buf == null) return;
        if (!buf.isReadable()) {
            cumulation = null;
            if (cumulationOwn && buf.refCnt() == 1 && buf.capacity() <= MAX_SPARE) {
                spare = buf.clear();
            } else {
                buf.release();
            }
        } else if (buf.refCnt() == 1 && buf.readerIndex() > (buf.capacity() >>> 1)) {
            // Only when no sink holds a view: discarding moves the bytes under it.
            buf.discardSomeReadBytes();
        }
    }

    @Override
    public void close(ChannelHandlerContext ctx, ChannelPromise promise) throws Exception {
        closeRequested = true;
        ctx.close(promise);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        releaseCumulation();
    }

    private void releaseCumulation() {
        if (cumulation != null) {
            ByteBuf buf = cumulation;
            cumulation = null;
            buf.release();
        }
        if (spare != null) {
            ByteBuf buf = spare;
            spare = null;
            buf.release();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        try {
            if (cumulation != null && !closeRequested && !draining) drain(ctx, true);
        } catch (Throwable t) {
            ctx.fireExceptionCaught(t);
        } finally {
            releaseCumulation();
            ctx.fireChannelInactive();
        }
    }
}
