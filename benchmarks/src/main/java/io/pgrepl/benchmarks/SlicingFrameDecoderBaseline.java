package io.pgrepl.benchmarks;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.pgrepl.client.internal.BackendFrameDecoder;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.backend.BackendMessage;

/**
 * Baseline for {@link FramePathBenchmark}: the frame splitting of {@link BackendFrameDecoder} as
 * it was before the reusable view (main at 90cb64c): one {@code buf.slice(...)} object per
 * frame, no pause handling. Kept only to measure the difference side by side in one run.
 */
final class SlicingFrameDecoderBaseline extends ChannelInboundHandlerAdapter {
    private final BackendFrameDecoder.FrameSink sink;
    private final int maxFrameSize;
    private ByteBuf cumulation;

    SlicingFrameDecoderBaseline(BackendFrameDecoder.FrameSink sink, int maxFrameSize) {
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
            if (cumulation != buf) return;
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        if (cumulation != null) {
            cumulation.release();
            cumulation = null;
        }
    }
}
