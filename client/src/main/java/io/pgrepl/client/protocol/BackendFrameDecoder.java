package io.pgrepl.client.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.backend.BackendMessage;

/**
 * Splits the byte stream into backend frames (Byte1 type, Int32 length including itself,
 * payload) and hands each payload to a {@link FrameSink} as a slice of the cumulation buffer:
 * nothing is copied, and nothing is allocated per frame except the slice object.
 *
 * <p>The slice is valid only for the duration of {@link FrameSink#onFrame}; a sink that keeps it
 * calls {@code retain()} (the cumulator then copies instead of appending in place). The length
 * is checked as soon as the 5-byte header is in, so a hostile length fails at once instead of
 * making us buffer up to it.
 */
public final class BackendFrameDecoder extends ChannelInboundHandlerAdapter {
    public static final int DEFAULT_MAX_FRAME_SIZE = 256 * 1024 * 1024;

    /** Receives frames in order, on the event loop. */
    public interface FrameSink {
        void onFrame(byte type, ByteBuf payload) throws Exception;
    }

    private final FrameSink sink;
    private final int maxFrameSize;
    private ByteBuf cumulation;

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
        cumulation = cumulation == null ? in : ByteToMessageDecoder.MERGE_CUMULATOR.cumulate(ctx.alloc(), cumulation, in);
        try {
            drain(ctx);
        } finally {
            if (cumulation != null && !cumulation.isReadable()) {
                cumulation.release();
                cumulation = null;
            } else if (cumulation != null && cumulation.readerIndex() > (cumulation.capacity() >>> 1)) {
                cumulation.discardSomeReadBytes();
            }
        }
    }

    private void drain(ChannelHandlerContext ctx) throws Exception {
        ByteBuf buf = cumulation;
        while (buf.readableBytes() >= 5 && ctx.channel().isOpen()) {
            int start = buf.readerIndex();
            byte type = buf.getByte(start);
            int length = buf.getInt(start + 1);
            if (length < 4 || length > maxFrameSize - 1) {
                throw new MalformedMessageException(BackendMessage.name(type), 1,
                        "frame length " + length + " outside [4, " + (maxFrameSize - 1) + "]");
            }
            if (buf.readableBytes() < 1 + length) {
                return;
            }
            ByteBuf payload = buf.slice(start + 5, length - 4);
            buf.readerIndex(start + 1 + length);
            sink.onFrame(type, payload);
            if (cumulation != buf) return; // handler removed us or channel closed meanwhile
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (cumulation != null) {
            cumulation.release();
            cumulation = null;
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        handlerRemoved(ctx);
        ctx.fireChannelInactive();
    }
}
