package io.pgrepl.benchmarks;

import io.netty.channel.DefaultEventLoop;
import io.pgrepl.client.internal.reactive.DeliveryThread;
import io.pgrepl.client.internal.reactive.FlowBuffer;
import io.pgrepl.client.internal.reactive.ReadBatchSink;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.openjdk.jmh.annotations.*;

/**
 * The Flow face's hand-off: items made on an event loop, one "socket read" of
 * {@value #BATCH} items at a time, to a subscriber on its own thread that requests one at a time.
 * Scores are per item (a read's items from the first push to the last onNext, divided by its
 * size). {@code sink} is the path the publisher uses ({@link ReadBatchSink}: offer, one flush per
 * pass of the loop); {@code pushEach} is the one it replaced ({@link FlowBuffer#push} per item).
 *
 * <p>The guard is {@code items / wakes} (two counters): for {@code sink} it stays near {@value #BATCH}
 * (one wake of the subscriber's thread per read). A change that wakes it per item brings it near 1,
 * as {@code pushEach} shows, whatever the box's load does to the throughput.
 *
 * <p>Both run on each {@link #executor}: the publisher's own {@link DeliveryThread} and the
 * one-thread pool it replaced.
 *
 * <pre>java -jar benchmarks/target/benchmarks.jar FlowPathBenchmark</pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class FlowPathBenchmark {
    /** Changes per socket read: ~160 in the 1M-row drain with read coalescing (the scores assume this). */
    static final int BATCH = 160;

    /**
     * The subscriber's thread: {@code deliveryThread} is the publisher's default since 2026-12-02
     * ({@link DeliveryThread}: parks, unparked directly); {@code threadPool} the
     * one-thread {@code ThreadPoolExecutor} it replaced.
     */
    @Param({"deliveryThread", "threadPool"})
    public String executor;

    private DefaultEventLoop loop;
    private ExecutorService subscriberThread;
    private DeliveryThread deliveryThread;
    private final AtomicLong wakes = new AtomicLong();
    private final AtomicLong delivered = new AtomicLong();
    private FlowBuffer<Object> buffer;
    private Consumer<Object> sinkPath;
    private Runnable sinkRead;
    private Runnable pushRead;
    private long produced;

    /**
     * Wakes of the subscriber's thread and items delivered. JMH reports both as rates over the same
     * time, so {@code items / wakes} is the items per wake.
     */
    @State(Scope.Thread)
    @AuxCounters(AuxCounters.Type.EVENTS)
    public static class Wakes {
        public long wakes;
        public long items;
    }

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        loop = new DefaultEventLoop();
        subscriberThread = Executors.newSingleThreadExecutor(r -> new Thread(r, "flow-bench"));
        deliveryThread = new DeliveryThread("flow-bench-", 5_000);
        Executor target = "threadPool".equals(executor) ? subscriberThread : deliveryThread;
        Executor counting = r -> {
            wakes.incrementAndGet();
            target.execute(r);
        };
        buffer = new FlowBuffer<>(new Flow.Subscriber<>() {
            Flow.Subscription s;

            @Override
            public void onSubscribe(Flow.Subscription s) {
                this.s = s;
                s.request(1);
            }

            @Override
            public void onNext(Object item) {
                delivered.lazySet(delivered.get() + 1);
                s.request(1);
            }

            @Override
            public void onError(Throwable t) {}

            @Override
            public void onComplete() {}
        }, counting, 1 << 20, 1 << 19);
        buffer.upstream(new FlowBuffer.Upstream() {
            @Override public void pause() {}
            @Override public void resume() {}
            @Override public void cancel() {}
        });
        buffer.start();
        sinkPath = new ReadBatchSink<>(buffer, loop);
        Object item = new Object();
        sinkRead = () -> {
            for (int i = 0; i < BATCH; i++) sinkPath.accept(item);
        };
        pushRead = () -> {
            for (int i = 0; i < BATCH; i++) buffer.push(item);
        };
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
        subscriberThread.shutdownNow();
    }

    private void read(Runnable r, Wakes w) {
        long w0 = wakes.get();
        loop.execute(r);
        produced += BATCH;
        while (delivered.get() < produced) Thread.onSpinWait();
        w.wakes += wakes.get() - w0;
        w.items += BATCH;
    }

    @Benchmark
    @OperationsPerInvocation(160)
    public void sink(Wakes w) {
        read(sinkRead, w);
    }

    @Benchmark
    @OperationsPerInvocation(160)
    public void pushEach(Wakes w) {
        read(pushRead, w);
    }
}
