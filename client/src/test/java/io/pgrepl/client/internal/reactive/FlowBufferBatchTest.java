package io.pgrepl.client.internal.reactive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.DefaultEventLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Wake-ups per batch ({@link FlowBuffer#offer}/{@link FlowBuffer#flush}, {@link ReadBatchSink}):
 * the subscriber's executor is woken once per batch, demand stays exact, and nothing offered is
 * left undelivered once demand is there.
 */
class FlowBufferBatchTest {
    private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> new Thread(r, "flow-batch-test"));
    /** Each execute() is one wake of the subscriber's thread. */
    private final AtomicInteger wakes = new AtomicInteger();
    private final Executor executor = r -> {
        wakes.incrementAndGet();
        thread.execute(r);
    };

    @AfterEach
    void shutdown() {
        thread.shutdownNow();
    }

    private void settle() throws Exception {
        thread.submit(() -> { }).get(5, TimeUnit.SECONDS);
    }

    /** Requests {@code perItem} after each item (0: only the initial request), optionally cancelling at one. */
    static class Sub implements Flow.Subscriber<Integer> {
        final List<Integer> items = new CopyOnWriteArrayList<>();
        final CountDownLatch completed = new CountDownLatch(1);
        final long initial;
        final long perItem;
        final int cancelAt;
        volatile Flow.Subscription subscription;

        Sub(long initial, long perItem, int cancelAt) {
            this.initial = initial;
            this.perItem = perItem;
            this.cancelAt = cancelAt;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            if (initial > 0) s.request(initial);
        }

        @Override
        public void onNext(Integer item) {
            items.add(item);
            if (item == cancelAt) subscription.cancel();
            else if (perItem > 0) subscription.request(perItem);
        }

        @Override
        public void onError(Throwable t) {}

        @Override
        public void onComplete() {
            completed.countDown();
        }
    }

    private static List<Integer> range(int from, int to) {
        List<Integer> l = new ArrayList<>();
        for (int i = from; i < to; i++) l.add(i);
        return l;
    }

    @Test
    void oneWakePerBatchAndRequestOneGetsEveryItemInOrder() throws Exception {
        Sub sub = new Sub(1, 1, -1);
        FlowBuffer<Integer> b = new FlowBuffer<>(sub, executor, 1000, 10);
        b.upstream(new FlowBufferTest.RecordingUpstream());
        b.start();
        settle();
        int afterSubscribe = wakes.get();
        for (int batch = 0; batch < 5; batch++) {
            for (int i = 0; i < 100; i++) b.offer(batch * 100 + i);
            settle();
            assertEquals(batch * 100, sub.items.size(), "offer alone does not wake the subscriber");
            b.flush();
            settle();
            assertEquals((batch + 1) * 100, sub.items.size(), "flush delivers the whole batch");
        }
        assertEquals(range(0, 500), sub.items);
        assertEquals(5, wakes.get() - afterSubscribe, "one wake per batch of 100, not per item");
    }

    @Test
    void demandStaysExactAndAFlushWithoutDemandWakesNothing() throws Exception {
        Sub sub = new Sub(3, 0, -1);
        FlowBuffer<Integer> b = new FlowBuffer<>(sub, executor, 1000, 10);
        b.upstream(new FlowBufferTest.RecordingUpstream());
        b.start();
        for (int i = 0; i < 10; i++) b.offer(i);
        b.flush();
        settle();
        assertEquals(List.of(0, 1, 2), sub.items, "exactly the three requested");
        int before = wakes.get();
        b.flush(); // items wait, but no demand: nothing to wake for
        settle();
        assertEquals(before, wakes.get());
        // the read completed with items undelivered: the subscriber's own request delivers them
        sub.subscription.request(4);
        settle();
        assertEquals(range(0, 7), sub.items);
        b.complete();
        sub.subscription.request(100);
        assertTrue(sub.completed.await(5, TimeUnit.SECONDS), "complete follows the queued items");
        assertEquals(range(0, 10), sub.items);
    }

    @Test
    void itemsOfferedWhileTheSubscriberRunsAreNotStranded() throws Exception {
        CountDownLatch inOnNext = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Sub sub = new Sub(Long.MAX_VALUE, 0, -1) {
            @Override
            public void onNext(Integer item) {
                if (item == 0) {
                    inOnNext.countDown();
                    try {
                        release.await(5, TimeUnit.SECONDS);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                super.onNext(item);
            }
        };
        FlowBuffer<Integer> b = new FlowBuffer<>(sub, executor, 1000, 10);
        b.upstream(new FlowBufferTest.RecordingUpstream());
        b.start();
        b.offer(0);
        b.flush();
        assertTrue(inOnNext.await(5, TimeUnit.SECONDS));
        // the delivery thread is busy with item 0; a second batch arrives and is flushed meanwhile
        for (int i = 1; i < 50; i++) b.offer(i);
        b.flush();
        release.countDown();
        settle();
        settle();
        assertEquals(range(0, 50), sub.items);
    }

    @Test
    void crossingTheHighWatermarkPausesAndWakesAtOnce() throws Exception {
        Sub sub = new Sub(Long.MAX_VALUE, 0, -1);
        FlowBuffer<Integer> b = new FlowBuffer<>(sub, executor, 8, 2);
        FlowBufferTest.RecordingUpstream up = new FlowBufferTest.RecordingUpstream();
        b.upstream(up);
        b.start();
        settle();
        for (int i = 0; i < 9; i++) b.offer(i); // the 9th is above the watermark of 8
        settle();
        assertEquals(range(0, 9), sub.items, "woken without waiting for the batch's end");
        assertEquals(List.of("pause", "resume"), up.calls);
    }

    @Test
    void cancelInTheMiddleOfABatchStopsDeliveryAndDiscardsTheRest() throws Exception {
        Sub sub = new Sub(100, 0, 4); // demand left over when it cancels at item 4
        FlowBuffer<Integer> b = new FlowBuffer<>(sub, executor, 1000, 10);
        List<Integer> discarded = new CopyOnWriteArrayList<>();
        b.onDiscard(discarded::add);
        FlowBufferTest.RecordingUpstream up = new FlowBufferTest.RecordingUpstream();
        b.upstream(up);
        b.start();
        for (int i = 0; i < 10; i++) b.offer(i);
        b.flush();
        settle();
        b.offer(10); // still in flight from the event loop
        b.flush();
        settle();
        assertEquals(range(0, 5), sub.items, "nothing after the item that cancelled");
        assertEquals(range(5, 11), discarded);
        assertEquals(List.of("cancel"), up.calls);
    }

    @Test
    void onTheEventLoopOneFlushFollowsEachPassOfTheLoop() throws Exception {
        DefaultEventLoop loop = new DefaultEventLoop();
        try {
            Sub sub = new Sub(1, 1, -1);
            FlowBuffer<Integer> b = new FlowBuffer<>(sub, executor, 1000, 10);
            b.upstream(new FlowBufferTest.RecordingUpstream());
            b.start();
            settle();
            ReadBatchSink<Integer> sink = new ReadBatchSink<>(b, loop);
            int afterSubscribe = wakes.get();
            // one task = one socket read and the frames it decoded
            for (int read = 0; read < 3; read++) {
                int first = read * 40;
                loop.submit(() -> {
                    for (int i = first; i < first + 40; i++) sink.accept(i);
                }).get(5, TimeUnit.SECONDS);
                loop.submit(() -> { }).get(5, TimeUnit.SECONDS); // the flush queued behind it has run
                settle();
                assertEquals(first + 40, sub.items.size(), "read " + read + " delivered in full");
            }
            assertEquals(3, wakes.get() - afterSubscribe, "one wake per read");
            sink.accept(120); // off the loop: pushed, delivered without a flush
            settle();
            assertEquals(range(0, 121), sub.items);
        } finally {
            loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
        }
    }
}
