package io.pgrepl.client.internal.reactive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * An item queued while the subscriber cancels: it must still reach the discard hook (and a lease
 * give it back), whatever the interleaving. An item that never reaches the hook keeps what it owns
 * (a transaction's spill file, a pooled buffer) for good, and {@link FlowBuffer#queued()} never
 * drops to zero.
 */
class FlowBufferCancelRaceTest {
    /** A subscriber that requests {@code initial} items and keeps them. */
    static final class Sub implements Flow.Subscriber<Integer> {
        final List<Integer> items = new CopyOnWriteArrayList<>();
        final long initial;
        volatile Flow.Subscription subscription;

        Sub(long initial) {
            this.initial = initial;
        }

        @Override
        public void onSubscribe(Flow.Subscription s) {
            subscription = s;
            if (initial > 0) s.request(initial);
        }

        @Override
        public void onNext(Integer item) {
            items.add(item);
        }

        @Override
        public void onError(Throwable t) {}

        @Override
        public void onComplete() {}
    }

    static final class NoUpstream implements FlowBuffer.Upstream {
        @Override public void pause() {}
        @Override public void resume() {}
        @Override public void cancel() {}
    }

    /**
     * The interleaving, made deterministic: the source thread has checked that the buffer is not
     * cancelled and is about to queue item 2 (held inside the weigher, which runs between the two)
     * when the subscriber's cancel runs to its end on another thread, clearing the queue. Then item 2
     * is queued. The source ends its batch with flush(), as the event loop does after a read.
     */
    @Test
    void anItemQueuedWhileTheSubscriberCancelsIsDiscarded() throws Exception {
        Sub sub = new Sub(0);
        FlowBuffer<Integer> b = new FlowBuffer<>(sub, Runnable::run, 100, 10);
        List<Integer> discarded = new CopyOnWriteArrayList<>();
        CountDownLatch checked = new CountDownLatch(1);
        CountDownLatch cancelDone = new CountDownLatch(1);
        AtomicBoolean weigherRan = new AtomicBoolean();
        b.weigher(item -> {
            if (item == 2) {
                weigherRan.set(true);
                checked.countDown();
                try {
                    assertTrue(cancelDone.await(10, TimeUnit.SECONDS));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return 1;
        }, 1_000_000);
        b.onDiscard(discarded::add);
        b.upstream(new NoUpstream());
        b.start();
        Thread source = new Thread(() -> {
            b.offer(1);
            b.offer(2);
            b.flush();
        }, "flow-source");
        source.start();
        assertTrue(checked.await(10, TimeUnit.SECONDS), "the source reached item 2");
        sub.subscription.cancel();
        cancelDone.countDown();
        source.join(10_000);
        assertTrue(weigherRan.get());
        assertTrue(b.isCancelled());
        assertEquals(List.of(1, 2), discarded, "item 1 cleared by the cancel, item 2 queued after it");
        assertEquals(0, b.queued());
        assertEquals(0, b.queuedWeight());
        assertEquals(List.of(), sub.items);
    }

    /** The same with push(), which drains after every item: it never lost one, and must not start to. */
    @Test
    void anItemPushedWhileTheSubscriberCancelsIsDiscarded() throws Exception {
        Sub sub = new Sub(0);
        FlowBuffer<Integer> b = new FlowBuffer<>(sub, Runnable::run, 100, 10);
        List<Integer> discarded = new CopyOnWriteArrayList<>();
        CountDownLatch checked = new CountDownLatch(1);
        CountDownLatch cancelDone = new CountDownLatch(1);
        b.weigher(item -> {
            if (item == 2) {
                checked.countDown();
                try {
                    cancelDone.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return 1;
        }, 1_000_000);
        b.onDiscard(discarded::add);
        b.upstream(new NoUpstream());
        b.start();
        Thread source = new Thread(() -> {
            b.push(1);
            b.push(2);
        }, "flow-source");
        source.start();
        assertTrue(checked.await(10, TimeUnit.SECONDS));
        sub.subscription.cancel();
        cancelDone.countDown();
        source.join(10_000);
        assertEquals(List.of(1, 2), discarded);
        assertEquals(0, b.queued());
    }

    /**
     * An executor that refuses the subscriber's signals (shut down) cancels the buffer: the item
     * whose wake-up it refused, and any queued before, are discarded there and then, since no drain
     * pass will ever run to do it.
     */
    @Test
    void itemsQueuedWhenTheExecutorRefusesAreDiscarded() {
        Sub sub = new Sub(0);
        AtomicBoolean open = new AtomicBoolean(true);
        java.util.concurrent.Executor refusing = r -> {
            if (!open.get()) throw new RejectedExecutionException("shut down");
            r.run();
        };
        FlowBuffer<Integer> b = new FlowBuffer<>(sub, refusing, 100, 10);
        List<Integer> discarded = new CopyOnWriteArrayList<>();
        b.onDiscard(discarded::add);
        b.upstream(new NoUpstream());
        b.start();
        b.offer(1);
        b.offer(2);
        open.set(false);
        b.push(3);
        assertTrue(b.isCancelled());
        assertEquals(List.of(1, 2, 3), discarded);
        assertEquals(0, b.queued());
        b.push(4); // after the cancel: discarded at once
        assertEquals(List.of(1, 2, 3, 4), discarded);
    }

    /**
     * Real threads, no holds: a source offering in batches and flushing, a subscriber taking some
     * and cancelling at a random moment. Every item is accounted for exactly once, delivered or
     * discarded; nothing stays queued.
     */
    @Test
    void everyItemIsDeliveredOrDiscardedExactlyOnce() throws Exception {
        ExecutorService delivery = Executors.newSingleThreadExecutor(r -> new Thread(r, "flow-delivery"));
        try {
            java.util.Random rnd = new java.util.Random(7);
            for (int round = 0; round < 300; round++) {
                int total = 200 + rnd.nextInt(300);
                int cancelAfter = rnd.nextInt(total);
                List<Integer> delivered = new CopyOnWriteArrayList<>();
                List<Integer> discarded = new CopyOnWriteArrayList<>();
                CountDownLatch go = new CountDownLatch(1);
                java.util.concurrent.atomic.AtomicReference<Flow.Subscription> subscription = new java.util.concurrent.atomic.AtomicReference<>();
                Flow.Subscriber<Integer> sub = new Flow.Subscriber<>() {
                    @Override
                    public void onSubscribe(Flow.Subscription s) {
                        subscription.set(s);
                        s.request(Long.MAX_VALUE);
                    }

                    @Override
                    public void onNext(Integer item) {
                        delivered.add(item);
                        if (delivered.size() == cancelAfter / 2) go.countDown();
                    }

                    @Override public void onError(Throwable t) {}
                    @Override public void onComplete() {}
                };
                FlowBuffer<Integer> b = new FlowBuffer<>(sub, delivery, 64, 8);
                b.onDiscard(discarded::add);
                b.upstream(new NoUpstream());
                b.start();
                Thread source = new Thread(() -> {
                    for (int i = 0; i < total; i++) {
                        b.offer(i);
                        if (i % 16 == 15) b.flush();
                    }
                    b.flush();
                });
                source.start();
                if (cancelAfter / 2 > 0) go.await(10, TimeUnit.SECONDS);
                // The subscriber cancels from a thread of its own, as a Flow subscriber may.
                while (subscription.get() == null) Thread.onSpinWait();
                subscription.get().cancel();
                source.join(10_000);
                // Let the last drain pass run.
                delivery.submit(() -> { }).get(5, TimeUnit.SECONDS);
                List<Integer> all = new ArrayList<>(delivered);
                all.addAll(discarded);
                all.sort(null);
                List<Integer> expected = new ArrayList<>();
                for (int i = 0; i < total; i++) expected.add(i);
                assertEquals(expected, all, "round " + round + ": delivered " + delivered.size() + ", discarded " + discarded.size());
                assertEquals(0, b.queued(), "round " + round);
            }
        } finally {
            delivery.shutdownNow();
        }
    }
}
