package io.pgrepl.benchmarks;

import io.netty.buffer.AdaptiveByteBufAllocator;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.netty.channel.ChannelHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.pgrepl.client.internal.BackendFrameDecoder;
import io.pgrepl.codec.backend.BackendMessage;
import io.pgrepl.codec.pgoutput.PgOutputDecoder;
import io.pgrepl.codec.replication.XLogData;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.*;

/**
 * The receive hot path below the streaming layer: bytes as they come off the socket (64 KiB
 * reads, frames split across them) → frame splitting → CopyData 'w' → {@link XLogData} →
 * {@link PgOutputDecoder} with a handler that reads every column in place.
 *
 * <p>The stream is the golden capture pg17/proto1 (the 134 messages of
 * {@link PgOutputDecodeBenchmark}; Relation/Type messages decoded in the setup only) wrapped in
 * XLogData + CopyData frames and repeated {@value #REPEAT} times. Each read is a fresh buffer
 * from the channel's allocator (the copy a socket read makes, paid by both variants).
 * {@code current} is {@link BackendFrameDecoder}; {@code baseline} is
 * {@link SlicingFrameDecoderBaseline} (one slice object per frame). Scores are per frame.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
public class FramePathBenchmark {
    static final int REPEAT = 32;
    static final int FRAMES = PgOutputDecodeBenchmark.MESSAGES * REPEAT;
    static final int READ_SIZE = 64 * 1024;

    /**
     * Netty 4.2's default is adaptive; pooled was 4.1's; unpooled allocates per derived buffer anyway.
     * {@code mixed} takes each read from the next of adaptive direct, pooled direct and unpooled heap,
     * as a drain sees several buffer classes (the allocator's, a merged cumulation, a sampled
     * leak-detection wrapper): a frame path whose getters reach the read buffer's own class turns
     * megamorphic there.
     */
    @Param({"adaptive", "pooled", "mixed"})
    public String allocator;

    private ByteBufAllocator[] reads;

    private byte[] stream;
    private EmbeddedChannel currentChannel;
    private EmbeddedChannel baselineChannel;
    private Sink currentSink;
    private Sink baselineSink;

    /** What the streaming layer does per CopyData: XLogData flyweight, then pgoutput decoding. */
    static final class Sink implements BackendFrameDecoder.FrameSink {
        final PgOutputDecoder decoder = new PgOutputDecoder();
        final XLogData xlog = new XLogData();
        final PgOutputDecodeBenchmark.TouchEveryColumn visitor = new PgOutputDecodeBenchmark.TouchEveryColumn();
        int frames;

        @Override
        public void onFrame(byte type, ByteBuf payload) {
            frames++;
            if (type == BackendMessage.COPY_DATA && payload.getByte(payload.readerIndex()) == XLogData.TYPE) {
                xlog.wrap(payload);
                visitor.sum += xlog.walStart();
                decoder.decode(xlog.buffer(), xlog.dataIndex(), xlog.dataLength(), visitor);
            }
        }
    }

    @Setup
    public void setup() throws Exception {
        currentSink = new Sink();
        baselineSink = new Sink();
        List<byte[]> measured = Pg17Capture.primeAndSelect(currentSink.decoder, baselineSink.decoder);
        ByteBuf b = Unpooled.buffer();
        long lsn = 0x1506898L;
        for (int rep = 0; rep < REPEAT; rep++) {
            for (byte[] m : measured) {
                b.writeByte(BackendMessage.COPY_DATA).writeInt(4 + XLogData.HEADER_LENGTH + m.length);
                b.writeByte(XLogData.TYPE).writeLong(lsn).writeLong(lsn + 64).writeLong(789_000_000_000L);
                b.writeBytes(m);
                lsn += m.length;
            }
        }
        stream = new byte[b.readableBytes()];
        b.readBytes(stream);
        System.out.printf("%n[setup] %d frames, %d bytes, %d reads of %d%n", FRAMES, stream.length,
                (stream.length + READ_SIZE - 1) / READ_SIZE, READ_SIZE);
        ByteBufAllocator alloc = switch (allocator) {
            case "adaptive", "mixed" -> new AdaptiveByteBufAllocator();
            case "pooled" -> PooledByteBufAllocator.DEFAULT;
            case "unpooled" -> UnpooledByteBufAllocator.DEFAULT;
            default -> throw new IllegalArgumentException(allocator);
        };
        reads = allocator.equals("mixed")
                ? new ByteBufAllocator[] {alloc, PooledByteBufAllocator.DEFAULT, new UnpooledByteBufAllocator(false)}
                : new ByteBufAllocator[] {alloc};
        currentChannel = channel(alloc, new BackendFrameDecoder(currentSink, BackendFrameDecoder.DEFAULT_MAX_FRAME_SIZE));
        baselineChannel = channel(alloc, new SlicingFrameDecoderBaseline(baselineSink, BackendFrameDecoder.DEFAULT_MAX_FRAME_SIZE));
    }

    private static EmbeddedChannel channel(ByteBufAllocator alloc, ChannelHandler decoder) {
        EmbeddedChannel ch = new EmbeddedChannel();
        ch.config().setAllocator(alloc);
        ch.pipeline().addLast(decoder);
        return ch;
    }

    /**
     * Both must see every frame, or the comparison is meaningless. Checked here, not by running
     * both variants in the setup: that would teach each fork's JIT the other variant's buffer type.
     */
    @TearDown
    public void tearDown() {
        for (Sink s : new Sink[] {currentSink, baselineSink}) {
            if (s.frames % FRAMES != 0) throw new IllegalStateException("frames delivered: " + s.frames + ", not whole passes of " + FRAMES);
        }
        if (currentSink.frames + baselineSink.frames == 0) throw new IllegalStateException("nothing delivered");
        currentChannel.finishAndReleaseAll();
        baselineChannel.finishAndReleaseAll();
    }

    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public long current() {
        return push(currentChannel, currentSink);
    }

    @Benchmark
    @OperationsPerInvocation(FRAMES)
    public long baseline() {
        return push(baselineChannel, baselineSink);
    }

    private long push(EmbeddedChannel ch, Sink sink) {
        sink.visitor.sum = 0;
        int r = 0;
        for (int off = 0; off < stream.length; off += READ_SIZE) {
            int n = Math.min(READ_SIZE, stream.length - off);
            ByteBuf read = reads[r++ % reads.length].ioBuffer(n);
            read.writeBytes(stream, off, n);
            ch.pipeline().fireChannelRead(read);
            ch.pipeline().fireChannelReadComplete();
        }
        return sink.visitor.sum;
    }
}
