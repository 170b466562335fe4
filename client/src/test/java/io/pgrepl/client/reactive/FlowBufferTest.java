package io.pgrepl.client.reactive;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FlowBufferTest {
    private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> new Thread(r, "flow-test"));

    @AfterEach
    void shutdown() {
        executor.shutdownNow();
    }

    /** Records upstream calls; stands in for the replication stream's pause/resume/stop. */
    static final class RecordingUpstream implements FlowBuffer.Upstream {
        final List<String> calls = new CopyOnWriteArrayList<>();

        @Override
        public void pause() {
            calls.add("pause");
        }

        @Override
        public void resume() {
            calls.add("resume");
        }

        @Override
        public void cancel() {
            calls.add("cancel");
        }
    }

    static class Sub implements Flow.Subscriber<Integer> {
        final List<Integer> items = new CopyOnWriteArrayList<>();
        final List<String> signals = new CopyOnWriteArrayList<>();
        final AtomicReference<Throwable> error = new AtomicReference<>();
        final CountDownLatch terminal = new CountDownLatch(1);
        volatile Flow.Subscription subscription;
        volatile Thread onSubscribeThread;
        final long initial;

        Sub(long initial) {
            this.initial = initial;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            onSubscribeThread = Thread.currentThread();
            signals.add("subscribe");
            subscription = s;
            if (initial > 0) s.request(initial);
        }

        @Override
        public void onNext(Integer item) {
            items.add(item);
        }

        @Override
        public void onError(Throwable t) {
            signals.add("error");
            error.set(t);
            terminal.countDown();
        }

        @Override
        public void onComplete() {
            signals.add("complete");
            terminal.countDown();
        }
    }

    private void settle() throws Exception {
        // a no-op through the single-threaded executor: everything queued before has run
        executor.submit(() -> { }).get(5, TimeUnit.SECONDS);
    }

    @Test
    void neverDeliversBeyondDemandAndSignalsOnSubscribeFirstOffTheCallerThread() throws Exception {
        Sub sub = new Sub(3);
        FlowBuffer<Integer> b = new FlowBuffer<>(sub, executor, 1000, 10);
        b.upstream(new RecordingUpstream());
        b.start();
        for (int i = 0; i < 100; i++) b.push(i);
        settle();
        assertEquals(List.of(0, 1, 2), sub.items);
        assertEquals("subscribe", sub.signals.get(0));
        assertNotEquals(Thread.currentThread(), sub.onSubscribeThread);
        sub.subscription.request(5);
        settle();
        assertEquals(8, sub.items.size());
        b.complete();
        settle();
        assertEquals(1, sub.terminal.getCount(), "complete waits for queued items");
        sub.subscription.request(Long.MAX_VALUE);
        sub.subscription.request(Long.MAX_VALUE); // demand saturates, no overflow
        assertTrue(sub.terminal.await(5, TimeUnit.SECONDS));
        assertEquals(100, sub.items.size());
        assertEquals("complete", sub.signals.get(sub.signals.size() - 1));
    }

    @Test
    void itemsNeverDeliveredAreDiscardedAndDeliveredOnesAreNot() throws Exception {
        Sub sub = new Sub(2);
        FlowBuffer<Integer> b = new FlowBuffer<>(sub, executor, 1000, 10);
        List<Integer> discarded = new CopyOnWriteArrayList<>();
        b.onDiscard(discarded::add);
        b.upstream(new RecordingUpstream());
        b.start();
        for (int i = 0; i < 5; i++) b.push(i);
        settle();
        assertEquals(List.of(0, 1), sub.items);
        sub.subscription.cancel();
        settle();
        b.push(5); // in flight from the event loop after the cancel
        settle();
        assertEquals(List.of(2, 3, 4, 5), discarded, "queued at cancel, or pushed after it");
    }

    @Test
    void theStreamsEndDiscardsNothing() throws Exception {
        Sub sub = new Sub(1);
        FlowBuffer<Integer> b = new FlowBuffer<>(sub, executor, 1000, 10);
        List<Integer> discarded = new CopyOnWriteArrayList<>();
        b.onDiscard(discarded::add);
        b.upstream(new RecordingUpstream());
        b.start();
        for (int i = 0; i < 4; i++) b.push(i);
        b.error(new IllegalStateException("stream ended"));
        settle();
        assertEquals(List.of(0), sub.items);
        sub.subscription.request(10);
        assertTrue(sub.terminal.await(5, TimeUnit.SECONDS));
        assertEquals(List.of(0, 1, 2, 3), sub.items, "queued items are delivered before the error");
        assertEquals(List.of(), discarded);
    }

    @Test
    void pausesAboveHighWatermarkAndResumesBelowLow() throws Exception {
        Sub sub = new Sub(0);
        RecordingUpstream up = new RecordingUpstream();
        FlowBuffer<Integer> b = new FlowBuffer<>(sub, executor, 10, 4);
        b.upstream(up);
        b.start();
        for (int i = 0; i < 10; i++) b.push(i);
        assertEquals(List.of(), up.calls);
        b.push(10);
        b.push(11); // one read's leftovers after the pause still queue
        assertEquals(List.of("pause"), up.calls);
        settle();
        sub.subscription.request(7); // 12 -> 5 queued: still above low
        settle();
        assertEquals(List.of("pause"), up.calls);
        sub.subscription.request(1); // 4 queued
        settle();
        assertEquals(List.of("pause", "resume"), up.calls);
        assertEquals(12, b.peakQueued());
        assertEquals(4, b.queued());
        assertEquals(1, b.pauses());
    }

    @Test
    void weightAboveTheLimitPausesAndResumesOnlyBelowAQuarter() throws Exception {
        Sub sub = new Sub(0);
        RecordingUpstream up = new RecordingUpstream();
        FlowBuffer<Integer> b = new FlowBuffer<>(sub, executor, 100, 10);
        b.weigher(i -> i, 1000); // the item is its own weight
        b.upstream(up);
        b.start();
        b.push(600);
        assertEquals(List.of(), up.calls);
        b.push(500); // 1100 > 1000, while only 2 items are queued
        assertEquals(List.of("pause"), up.calls);
        b.push(200);
        settle();
        sub.subscription.request(1); // 700 left: above 250
        settle();
        assertEquals(List.of("pause"), up.calls);
        sub.subscription.request(1); // 200 left
        settle();
        assertEquals(List.of("pause", "resume"), up.calls);
        assertEquals(200, b.queuedWeight());
    }

    @Test
    void nonPositiveRequestIsAnErrorAndCancelsUpstream() throws Exception {
        Sub sub = new Sub(0);
        RecordingUpstream up = new RecordingUpstream();
        FlowBuffer<Integer> b = new FlowBuffer<>(sub, executor, 10, 4);
        b.upstream(up);
        b.start();
        b.push(1);
        settle();
        sub.subscription.request(0);
        assertTrue(sub.terminal.await(5, TimeUnit.SECONDS));
        assertInstanceOf(IllegalArgumentException.class, sub.error.get());
        assertTrue(sub.error.get().getMessage().contains("3.9"));
        assertEquals(List.of(), sub.items);
        assertEquals(List.of("cancel"), up.calls);
    }

    @Test
    void cancelStopsUpstreamOnceAndSilencesTheSubscriber() throws Exception {
        Sub sub = new Sub(2);
        RecordingUpstream up = new RecordingUpstream();
        FlowBuffer<Integer> b = new FlowBuffer<>(sub, executor, 10, 4);
        b.upstream(up);
        b.start();
        b.push(1);
        settle();
        sub.subscription.cancel();
        sub.subscription.cancel();
        b.push(2);
        b.error(new RuntimeException("late"));
        settle();
        assertEquals(List.of(1), sub.items);
        assertEquals(List.of("subscribe"), sub.signals);
        assertEquals(List.of("cancel"), up.calls);
        assertTrue(b.isCancelled());
    }

    @Test
    void upstreamErrorDeliveredAfterQueuedItems() throws Exception {
        Sub sub = new Sub(Long.MAX_VALUE);
        FlowBuffer<Integer> b = new FlowBuffer<>(sub, executor, 10, 4);
        b.upstream(new RecordingUpstream());
        b.start();
        b.push(1);
        b.push(2);
        b.error(new IllegalStateException("boom"));
        assertTrue(sub.terminal.await(5, TimeUnit.SECONDS));
        assertEquals(List.of(1, 2), sub.items);
        assertEquals("boom", sub.error.get().getMessage());
    }

    @Test
    void throwingOnNextCancelsUpstream() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        RecordingUpstream up = new RecordingUpstream();
        Sub sub = new Sub(10) {
            @Override
            public void onNext(Integer item) {
                calls.incrementAndGet();
                throw new RuntimeException("subscriber bug");
            }
        };
        FlowBuffer<Integer> b = new FlowBuffer<>(sub, executor, 10, 4);
        b.upstream(up);
        b.start();
        b.push(1);
        b.push(2);
        settle();
        assertEquals(1, calls.get());
        assertEquals(List.of("cancel"), up.calls);
    }
}
