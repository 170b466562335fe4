package io.pgrepl.client.blocking;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.SubmissionPublisher;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BlockingChangesTest {
    @Test
    void iteratesInOrderWithBoundedPrefetchAndPollTimeout() throws Exception {
        var exec = Executors.newSingleThreadExecutor();
        try (SubmissionPublisher<Integer> pub = new SubmissionPublisher<>(exec, 1024)) {
            BlockingChanges<Integer> it = BlockingChanges.of(pub, 4, null);
            // offer more than the prefetch: the publisher holds the rest until we take
            for (int i = 0; i < 10; i++) pub.submit(i);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (it.buffered() < 4 && System.nanoTime() < deadline) Thread.sleep(5);
            Thread.sleep(50);
            assertEquals(4, it.buffered(), "never more than prefetch waiting here");
            List<Integer> got = new ArrayList<>();
            for (int i = 0; i < 10; i++) got.add(it.next());
            assertEquals(List.of(0, 1, 2, 3, 4, 5, 6, 7, 8, 9), got);
            assertNull(it.poll(Duration.ofMillis(50)), "timeout gives null");
            pub.submit(42);
            assertEquals(42, it.poll(Duration.ofSeconds(5)));
            pub.close();
            assertFalse(it.hasNext());
            assertThrows(NoSuchElementException.class, it::next);
            assertThrows(NoSuchElementException.class, () -> it.poll(Duration.ofMillis(1)));
        } finally {
            exec.shutdownNow();
        }
    }

    @Test
    void failureIsThrownAfterQueuedItemsAndCloseCancels() throws Exception {
        var exec = Executors.newSingleThreadExecutor();
        try (SubmissionPublisher<Integer> pub = new SubmissionPublisher<>(exec, 16)) {
            CompletableFuture<Void> terminated = CompletableFuture.completedFuture(null);
            BlockingChanges<Integer> it = BlockingChanges.of(pub, 8, terminated);
            pub.submit(1);
            // SubmissionPublisher drops undelivered items on closeExceptionally: let item 1 arrive first
            long deadline0 = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (it.buffered() < 1 && System.nanoTime() < deadline0) Thread.sleep(5);
            pub.closeExceptionally(new IllegalStateException("server went away"));
            assertTrue(it.hasNext());
            assertEquals(1, it.next());
            IllegalStateException e = assertThrows(IllegalStateException.class, it::hasNext);
            assertEquals("server went away", e.getMessage());
            it.close();
        } finally {
            exec.shutdownNow();
        }
        // a publisher that records what the iterator does to its subscription
        java.util.concurrent.atomic.AtomicLong requested = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.atomic.AtomicBoolean cancelled = new java.util.concurrent.atomic.AtomicBoolean();
        java.util.concurrent.Flow.Publisher<Integer> recording = s -> s.onSubscribe(new java.util.concurrent.Flow.Subscription() {
            @Override
            public void request(long n) {
                requested.addAndGet(n);
            }

            @Override
            public void cancel() {
                cancelled.set(true);
            }
        });
        BlockingChanges<Integer> it = BlockingChanges.of(recording, 8, null);
        assertEquals(8, requested.get());
        it.close();
        assertTrue(cancelled.get(), "close cancels the subscription");
        assertFalse(it.hasNext());
    }

    @Test
    void closeOnTheEventLoopFailsFastInsteadOfBlocking() throws Exception {
        io.netty.channel.DefaultEventLoop loop = new io.netty.channel.DefaultEventLoop();
        try {
            java.util.concurrent.atomic.AtomicBoolean cancelled = new java.util.concurrent.atomic.AtomicBoolean();
            java.util.concurrent.Flow.Publisher<Integer> pub = s -> s.onSubscribe(new java.util.concurrent.Flow.Subscription() {
                @Override
                public void request(long n) {}

                @Override
                public void cancel() {
                    cancelled.set(true);
                }
            });
            // completed only by the loop itself, as the stream's end is: waiting on the loop would block 30 s
            CompletableFuture<Void> terminated = new CompletableFuture<>();
            BlockingChanges<Integer> it = BlockingChanges.of(pub, 4, terminated, loop::inEventLoop);
            Throwable thrown = loop.submit(() -> {
                try {
                    it.close();
                    return null;
                } catch (IllegalStateException e) {
                    return e;
                }
            }).get(5, TimeUnit.SECONDS);
            assertTrue(thrown instanceof IllegalStateException, "close() on the event loop must fail fast");
            assertTrue(cancelled.get(), "the stream is still told to stop");
        } finally {
            loop.shutdownGracefully(0, 0, TimeUnit.SECONDS);
        }
    }
}
