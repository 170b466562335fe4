package io.pgrepl.client.internal.reactive;

import io.netty.util.internal.PlatformDependent;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToLongFunction;

/**
 * What a {@link FlowBuffer} holds for its subscriber, counted in items and, with a weigher, in
 * weight (the bytes an item holds): one producer (the source) adds, one consumer (the drain pass)
 * polls. It only says when the source should pause or resume; the buffer acts on it.
 *
 * <p>The queue is an array (Netty's multi-producer, single-consumer queue): once it has grown to
 * the high watermark plus a read, queuing an item allocates nothing. An item that weighs 0 costs
 * no update of the weight, so a weigher that weighs only large items keeps small ones as cheap as
 * without one.
 *
 * @param <T> the item type
 */
final class BoundedQueue<T> {
    private final Queue<T> queue;
    private final int highWatermark;
    private final int lowWatermark;
    private final AtomicInteger size = new AtomicInteger();
    private final AtomicInteger peak = new AtomicInteger();
    private final AtomicLong weight = new AtomicLong();
    private final AtomicLong peakWeight = new AtomicLong();
    private volatile ToLongFunction<? super T> weigher;
    private volatile long maxWeight = Long.MAX_VALUE;

    /** @throws IllegalArgumentException unless 0 &lt;= lowWatermark &lt; highWatermark */
    BoundedQueue(int highWatermark, int lowWatermark) {
        if (highWatermark < 1 || lowWatermark < 0 || lowWatermark >= highWatermark) {
            throw new IllegalArgumentException("need 0 <= lowWatermark < highWatermark, got " + lowWatermark + "/" + highWatermark);
        }
        this.highWatermark = highWatermark;
        this.lowWatermark = lowWatermark;
        // One chunk holds the high watermark and a typical read, so a steady stream never links a
        // new chunk; a burst beyond it does, up to the queue's bound (never reached: the source
        // pauses above the high watermark).
        int chunk = Math.max(1024, Integer.highestOneBit(Math.min(highWatermark, 1 << 20)) << 1);
        this.queue = PlatformDependent.newMpscQueue(chunk, 1 << 30);
    }

    /** Bounds by weight too: see {@link FlowBuffer#weigher}. Set before the first item. */
    void weigher(ToLongFunction<? super T> w, long max) {
        if (max < 1) throw new IllegalArgumentException("maxWeight must be positive");
        this.weigher = w;
        this.maxWeight = max;
    }

    /** @return true if the queue is now above a pause level (the high watermark, or the weight bound) */
    boolean add(T item) {
        ToLongFunction<? super T> f = weigher;
        long total = 0;
        if (f != null) {
            long w = f.applyAsLong(item);
            total = w == 0 ? weight.get() : weight.addAndGet(w);
            if (total > peakWeight.get()) peakWeight.accumulateAndGet(total, Math::max);
        }
        if (!queue.offer(item)) throw new IllegalStateException("flow queue full"); // 2^30 items: never, the source pauses long before
        int n = size.incrementAndGet();
        if (n > peak.get()) peak.accumulateAndGet(n, Math::max);
        return n > highWatermark || total > maxWeight;
    }

    /** {@return the oldest item, or null} (consumer side) */
    T poll() {
        T item = queue.poll();
        if (item != null) {
            size.decrementAndGet();
            ToLongFunction<? super T> f = weigher;
            if (f != null) {
                long w = f.applyAsLong(item);
                if (w != 0) weight.addAndGet(-w);
            }
        }
        return item;
    }

    /** Above the level where a paused source resumes: the low watermark, a quarter of the weight bound. */
    boolean aboveResumeLevel() {
        return size.get() > lowWatermark || weight.get() > maxWeight / 4;
    }

    boolean isEmpty() {
        return queue.isEmpty();
    }

    int size() {
        return size.get();
    }

    int peak() {
        return peak.get();
    }

    long weight() {
        return weight.get();
    }

    long peakWeight() {
        return peakWeight.get();
    }
}
