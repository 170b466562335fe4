package io.pgrepl.client.internal.reactive;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.channel.DefaultEventLoop;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Reused items ({@link Lease}): an item is given back to its owner only once the
 * subscriber's onNext for it returned (or it was never delivered), exactly once per delivery, so a
 * source that refills given-back items never overwrites one the subscriber is still reading.
 */
class FlowBufferLeaseTest {
    private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> new Thread(r, "flow-lease-test"));
    private final DefaultEventLoop loop = new DefaultEventLoop();

    @AfterEach
    void shutdown() {
        thread.shutdownNow();
        loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
    }

    /** A mutable item, refilled by the source after it is given back. */
    static final class Box {
        volatile int value;
        /** 0 free, 1 queued, 2 lent; moved by the source, the buffer and the pool. */
        final AtomicInteger state = new AtomicInteger();
    }

    /** The source's pool: records every misuse instead of throwing on the buffer's threads. */
    static final class Pool implements Lease<Box> {
        final Queue<Box> free = new ConcurrentLinkedQueue<>();
        final List<String> misuse = new CopyOnWriteArrayList<>();
        final AtomicInteger lent = new AtomicInteger();
        final AtomicInteger givenBack = new AtomicInteger();
        volatile Box inOnNext;
        final IdentityHashMap<Box, Boolean> made = new IdentityHashMap<>();

        /** Source side (one thread): a free box, or a new one, holding {@code v}. */
        Box fill(int v) {
            Box b = free.poll();
            if (b == null) {
                b = new Box();
                synchronized (made) {
                    made.put(b, true);
                }
            }
            if (!b.state.compareAndSet(0, 1)) misuse.add("refilled box not free: state " + b.state.get());
            b.value = v;
            return b;
        }

        @Override
        public void lend(Box b) {
            lent.incrementAndGet();
            if (!b.state.compareAndSet(1, 2)) misuse.add("lent a box not queued: state " + b.state.get());
        }

        @Override
        public void giveBack(Box b) {
            givenBack.incrementAndGet();
            if (inOnNext == b) misuse.add("given back during its onNext: " + b.value);
            int s = b.state.getAndSet(0);
            if (s == 0) misuse.add("given back twice: " + b.value);
            free.offer(b);
        }
    }

    @Test
    void anItemIsReusedOnlyAfterItsOnNextReturned() throws Exception {
        Pool pool = new Pool();
        int total = 4000;
        List<Integer> seen = new CopyOnWriteArrayList<>();
        CountDownLatch all = new CountDownLatch(1);
        FlowBuffer<Box> buffer = new FlowBuffer<>(new Flow.Subscriber<>() {
            Flow.Subscription s;

            @Override
            public void onSubscribe(Flow.Subscription s) {
                this.s = s;
                s.request(1);
            }

            @Override
            public void onNext(Box b) {
                pool.inOnNext = b;
                int before = b.value;
                // Linger so that the source refills given-back boxes while this one is being read.
                for (int i = 0; i < 200; i++) Thread.onSpinWait();
                if (b.value != before) pool.misuse.add("changed during onNext: " + before + " -> " + b.value);
                seen.add(b.value);
                pool.inOnNext = null;
                if (seen.size() == total) all.countDown();
                s.request(1);
            }

            @Override public void onError(Throwable t) { pool.misuse.add("onError " + t); }
            @Override public void onComplete() {}
        }, thread, 64, 16);
        buffer.lease(pool);
        buffer.upstream(new FlowBuffer.Upstream() {
            @Override public void pause() {}
            @Override public void resume() {}
            @Override public void cancel() {}
        });
        buffer.start();
        ReadBatchSink<Box> sink = new ReadBatchSink<>(buffer, loop);
        for (int read = 0; read < total / 100; read++) {
            int first = read * 100;
            // At most two reads outstanding, as a paused socket would keep it: boxes come back in time.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (seen.size() < first - 100 && System.nanoTime() < deadline) Thread.onSpinWait();
            loop.execute(() -> {
                for (int i = first; i < first + 100; i++) sink.accept(pool.fill(i));
            });
        }
        assertTrue(all.await(30, TimeUnit.SECONDS), "delivered " + seen.size() + " of " + total);
        thread.submit(() -> { }).get(5, TimeUnit.SECONDS);

        assertEquals(List.of(), pool.misuse);
        for (int i = 0; i < total; i++) assertEquals(i, seen.get(i), "item " + i);
        assertEquals(total, pool.lent.get());
        assertEquals(total, pool.givenBack.get());
        // Reuse happened: far fewer boxes than items (bounded by what was queued at once).
        assertTrue(pool.made.size() < total / 4, pool.made.size() + " boxes for " + total + " items");
    }

    @Test
    void itemsNeverDeliveredAndOneWhoseOnNextThrewAreGivenBack() throws Exception {
        Pool pool = new Pool();
        CountDownLatch cancelled = new CountDownLatch(1);
        FlowBuffer<Box> buffer = new FlowBuffer<>(new Flow.Subscriber<>() {
            @Override
            public void onSubscribe(Flow.Subscription s) {
                s.request(5);
            }

            @Override
            public void onNext(Box b) {
                if (b.value == 4) {
                    cancelled.countDown();
                    throw new IllegalStateException("subscriber bug"); // §2.13: the buffer cancels
                }
            }

            @Override public void onError(Throwable t) {}
            @Override public void onComplete() {}
        }, thread, 64, 16);
        buffer.lease(pool);
        buffer.start();
        for (int i = 0; i < 20; i++) buffer.offer(pool.fill(i));
        buffer.flush();
        assertTrue(cancelled.await(5, TimeUnit.SECONDS));
        thread.submit(() -> { }).get(5, TimeUnit.SECONDS);
        buffer.push(pool.fill(20)); // after cancel: discarded on this thread, given back too
        thread.submit(() -> { }).get(5, TimeUnit.SECONDS);

        assertEquals(List.of(), pool.misuse);
        assertEquals(5, pool.lent.get(), "items 0-4 delivered");
        assertEquals(21, pool.givenBack.get(), "every item given back once: 5 delivered, 15 queued at cancel, 1 pushed after");
    }
}
