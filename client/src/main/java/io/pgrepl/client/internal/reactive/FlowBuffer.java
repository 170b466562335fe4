package io.pgrepl.client.internal.reactive;

import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.Flow;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.ToLongFunction;

/**
 * The bounded hand-off between a push source (the replication event loop) and one
 * {@link Flow.Subscriber}: items queue up; above the high watermark the source is paused (socket
 * reads stop, keepalives do not), below the low watermark it is resumed. Every subscriber signal
 * (onSubscribe first) runs serially on {@code executor}, so a slow subscriber never delays the
 * keepalive answers. An executor that runs tasks inline puts the signals on the signalling thread,
 * the event loop included: only for a subscriber that never blocks (BlockingChanges' own).
 *
 * <p>The queue can exceed the high watermark by what one socket read (one receive buffer, up to
 * 64 KiB of messages) had already delivered when the pause took effect; never beyond that.
 *
 * <p>Wake-ups: a source that {@link #push}es wakes the executor for every item the subscriber is
 * idle for; one that {@link #offer}s and then {@link #flush}es wakes it once per batch. Either way,
 * once awake the executor delivers everything queued, up to demand, before it returns. On the
 * event loop, an item the subscriber can take at once skips the queue ({@link #emitNow}).
 *
 * <p>What is queued and its bound are the {@link BoundedQueue}'s; this class signals. Items that
 * are reused (a {@link Lease}) go back to their owner after onNext returns, or when discarded.
 */
public final class FlowBuffer<T> implements Flow.Subscription {
    /** What the buffer controls upstream. Calls are serialised; pause/resume alternate. */
    public interface Upstream {
        /** Stop producing until {@link #resume()} (socket reading off). */
        void pause();

        /** Produce again after {@link #pause()}. */
        void resume();

        /** Stop producing (the subscriber cancelled or failed); called at most once. */
        void cancel();
    }

    private final Flow.Subscriber<? super T> subscriber;
    private final Executor executor;
    private final UpstreamGate gate = new UpstreamGate();
    private final BooleanSupplier aboveResumeLevel = this::aboveResumeLevel;
    /** The executor when it is the stream's event loop: the only mode with {@link #emitNow}. */
    private final EventLoopExecutor loopExecutor;

    private final BoundedQueue<T> queue;
    private final AtomicLong demand = new AtomicLong();
    private final AtomicInteger wip = new AtomicInteger();
    private final Runnable drainTask = this::drainLoop;
    private boolean subscribed;
    private volatile boolean cancelled;
    private volatile boolean done;
    private volatile Throwable error;
    private boolean terminated;
    private volatile Throwable badRequest;
    private volatile Consumer<? super T> afterOnNext;
    private volatile Consumer<? super T> onDiscard;
    private volatile Lease<? super T> lease;

    /**
     * A buffer delivering to one subscriber.
     *
     * @param subscriber    receives the signals, serially on {@code executor}
     * @param executor      runs the subscriber's signals
     * @param highWatermark queued items above which the source is paused
     * @param lowWatermark  queued items at or below which it resumes
     * @throws IllegalArgumentException unless 0 &lt;= lowWatermark &lt; highWatermark
     */
    public FlowBuffer(Flow.Subscriber<? super T> subscriber, Executor executor, int highWatermark, int lowWatermark) {
        this.subscriber = Objects.requireNonNull(subscriber, "subscriber");
        this.executor = Objects.requireNonNull(executor, "executor");
        this.loopExecutor = executor instanceof EventLoopExecutor x ? x : null;
        this.queue = new BoundedQueue<>(highWatermark, lowWatermark);
    }

    /** @param hook runs on the executor after each onNext returned normally (the auto-acknowledge option) */
    public void afterOnNext(Consumer<? super T> hook) {
        this.afterOnNext = hook;
    }

    /**
     * Also bounds the queue by weight (e.g. the heap an item holds): above {@code maxWeight} the
     * source pauses, and it resumes only once the weight is at most a quarter of it. An item
     * weighing 0 costs no update of the weight. Set before {@link #start()}.
     *
     * @param w         the weight of one item, e.g. its heap bytes
     * @param maxWeight the weight above which the source pauses, positive
     * @throws IllegalArgumentException if {@code maxWeight} is not positive
     */
    public void weigher(ToLongFunction<? super T> w, long maxWeight) {
        queue.weigher(w, maxWeight);
    }

    /**
     * Receives every item that will never reach the subscriber: still queued at cancel or at a
     * failure, or pushed after it. Items that own resources (a transaction's spill file) release
     * them here. Set before {@link #start()}.
     *
     * @param hook releases one item; its exceptions are ignored
     */
    public void onDiscard(Consumer<? super T> hook) {
        this.onDiscard = hook;
    }

    /** @param l lends items for one onNext each, takes them back after (items reused by their source); before {@link #start()} */
    public void lease(Lease<? super T> l) {
        this.lease = l;
    }

    private void discard(T item) {
        Consumer<? super T> hook = onDiscard;
        if (hook != null) {
            try {
                hook.accept(item);
            } catch (RuntimeException ignored) {
                // releasing is best effort; the item is dropped either way
            }
        }
        Lease<? super T> l = lease;
        if (l != null) l.giveBack(item);
    }

    /** {@return the current weight of the queued items (0 without a weigher)} */
    public long queuedWeight() {
        return queue.weight();
    }

    /** {@return the most weight ever queued at once (0 without a weigher)} */
    public long peakQueuedWeight() {
        return queue.peakWeight();
    }

    /** @param up the source's controls; cancelled at once if the subscription was cancelled already */
    public void upstream(Upstream up) {
        gate.connect(up, cancelled);
    }

    /** Delivers onSubscribe (on the executor). Call once, before pushing. */
    public void start() {
        drain();
    }

    // ---- source side (any thread)

    /**
     * Queues an item for the subscriber (source side, any thread) and wakes its executor if it is
     * idle; pauses the source above a watermark. After cancel or termination the item is discarded
     * instead.
     *
     * @param item the item
     */
    public void push(T item) {
        enqueue(item);
        drain();
    }

    /**
     * Queues an item without waking the subscriber's executor (source side, one thread): the
     * source calls {@link #flush()} at the end of its batch, e.g. once per socket read, so a
     * subscriber that keeps up is woken once per batch instead of once per item. Crossing the
     * high watermark pauses the source and wakes the subscriber at once. After cancel or
     * termination the item is discarded instead.
     *
     * @param item the item
     */
    public void offer(T item) {
        if (enqueue(item)) drain();
    }

    /**
     * The end of a batch of {@link #offer}s: wakes the subscriber's executor if items wait and it
     * has demand. Without demand nothing is woken: the subscriber's next {@code request} drains.
     */
    public void flush() {
        if (queue.size() > 0 && demand.get() > 0) drain();
    }

    /** @return true if the subscriber's executor should be woken now: the item paused the source, or the sequence ended meanwhile */
    private boolean enqueue(T item) {
        if (cancelled || done) {
            discard(item);
            return false;
        }
        boolean full = queue.add(item);
        // A cancel (or an end) that came after the check above may have cleared the queue before the
        // item was in it: a drain pass then discards it. The check reads the flags after the item's
        // slot was claimed (a full fence), the cancel clears after setting them, so one of the two
        // sees the other.
        if (cancelled || done) return true;
        if (full) {
            gate.pause(aboveResumeLevel);
            return true;
        }
        return false;
    }

    private boolean aboveResumeLevel() {
        return queue.aboveResumeLevel();
    }

    /**
     * Event-loop delivery ({@link EventLoopExecutor}) on the loop, with demand, nothing queued and
     * no delivery pass running or due: delivers {@code item} at once, as the queue would have.
     * Lent, delivered and given back before this returns, so it may be a view over bytes the caller
     * holds only for the call (the socket read's). Otherwise does nothing: queue it ({@link #offer}).
     *
     * @param item the item
     * @return true if the item was taken (delivered, or the sequence ended on it)
     */
    public boolean emitNow(T item) {
        EventLoopExecutor x = loopExecutor;
        // Here only the loop queues items, and only the wip holder takes them or lowers demand: so
        // checked before the CAS, queued == 0 and demand > 0 still hold once it succeeded.
        if (x == null || wip.get() != 0 || queue.size() != 0 || demand.get() <= 0 || !x.inEventLoop()
                || !subscribed || terminated || cancelled || done || badRequest != null || !wip.compareAndSet(0, 1)) {
            return false;
        }
        if (demand.get() != Long.MAX_VALUE) demand.decrementAndGet();
        deliver(item, lease, afterOnNext);
        // A signal that came meanwhile found wip taken. A request (onNext's request(1)) needs no
        // pass: nothing is queued. Anything else (cancel, end, a queued item, a pause) gets one.
        int missed = wip.decrementAndGet();
        while (missed != 0) {
            if (queue.size() != 0 || cancelled || done || terminated || badRequest != null || gate.paused()) {
                drainLoop();
                break;
            }
            missed = wip.addAndGet(-missed);
        }
        return true;
    }

    /** {@return whether {@link #emitNow} can ever deliver: event-loop delivery} */
    public boolean emitsNow() {
        return loopExecutor != null;
    }

    /** Ends the sequence: onComplete follows the queued items (source side, any thread). */
    public void complete() {
        done = true;
        drain();
    }

    /**
     * Ends the sequence with a failure: onError follows the queued items (source side, any thread).
     *
     * @param t the failure; only the first one counts
     */
    public void error(Throwable t) {
        if (error == null) error = t;
        done = true;
        drain();
    }

    /** {@return the items waiting for demand right now} */
    public int queued() {
        return queue.size();
    }

    /** {@return the most items ever queued at once} */
    public int peakQueued() {
        return queue.peak();
    }

    /** {@return how many times the source was paused} */
    public long pauses() {
        return gate.pauses();
    }

    /**
     * Whether the source should be paused right now. Upstreams that apply pause/resume
     * asynchronously should apply this current value rather than the call they got, so that a
     * late resume never overrides a newer pause.
     *
     * @return true while the source should be paused
     */
    public boolean pauseWanted() {
        return gate.paused();
    }

    /** {@return whether the subscriber cancelled, or the executor refused to run its signals} */
    public boolean isCancelled() {
        return cancelled;
    }

    // ---- subscriber side

    @Override
    public void request(long n) {
        if (n <= 0) {
            // §3.9: a non-positive request is a subscriber bug, reported as onError.
            badRequest = new IllegalArgumentException("§3.9: request must be positive, got " + n);
        } else {
            long prev, next;
            do {
                prev = demand.get();
                next = prev + n < 0 ? Long.MAX_VALUE : prev + n;
            } while (!demand.compareAndSet(prev, next));
        }
        drain();
    }

    @Override
    public void cancel() {
        if (cancelled) return;
        cancelled = true;
        gate.cancel();
        drain();
    }

    private void drain() {
        if (wip.getAndIncrement() != 0) return;
        try {
            executor.execute(drainTask);
        } catch (RuntimeException rejected) {
            // No drain pass will ever run: cancel, and discard what is queued here, as the only
            // consumer (this call holds wip). Items queued meanwhile are counted as missed passes.
            cancelled = true;
            gate.cancel();
            int missed = 1;
            do {
                clear();
                missed = wip.addAndGet(-missed);
            } while (missed != 0);
        }
    }

    private void drainLoop() {
        int missed = 1;
        do {
            if (!subscribed) {
                subscribed = true;
                try {
                    subscriber.onSubscribe(this);
                } catch (Throwable t) {
                    cancel();
                }
            }
            if (terminated) {
                clear();
            } else if (cancelled) {
                terminated = true;
                clear();
            } else if (badRequest != null) {
                terminate(badRequest);
            } else {
                emitAvailable();
            }
            missed = wip.addAndGet(-missed);
        } while (missed != 0);
    }

    private void emitAvailable() {
        // Set before start(): read once per pass, not per item.
        Consumer<? super T> hook = afterOnNext;
        Lease<? super T> l = lease;
        while (demand.get() > 0 && !cancelled && badRequest == null) {
            T item = queue.poll();
            if (item == null) break;
            // §3.17: Long.MAX_VALUE is unbounded demand, which stays unbounded (request() caps at it).
            if (demand.get() != Long.MAX_VALUE) demand.decrementAndGet();
            // Only a paused source needs the lock. A pause this read misses is caught by the check
            // after the loop: every pause is followed by a drain pass (offer and push both drain).
            if (gate.paused()) maybeResume();
            if (!deliver(item, l, hook)) return;
        }
        maybeResume();
        if (cancelled) {
            terminated = true;
            clear();
        } else if (badRequest != null) {
            terminate(badRequest);
        } else if (done && queue.isEmpty()) {
            terminate(error);
        }
    }

    /** @return false if the sequence ended on the item (a failed lend, a throwing onNext) */
    private boolean deliver(T item, Lease<? super T> l, Consumer<? super T> hook) {
        if (l != null && !lend(l, item)) return false;
        try {
            subscriber.onNext(item);
            if (hook != null) hook.accept(item);
        } catch (Throwable t) {
            // §2.13 broken subscriber: cancel and stop signalling.
            if (l != null) l.giveBack(item);
            cancel();
            terminated = true;
            return false;
        }
        if (l != null) l.giveBack(item);
        return true;
    }

    /** A lend that fails (a malformed message decoded on this thread) ends the sequence with its error. */
    private boolean lend(Lease<? super T> l, T item) {
        try {
            l.lend(item);
            return true;
        } catch (RuntimeException e) {
            l.giveBack(item);
            terminate(e);
            return false;
        }
    }

    private void maybeResume() {
        if (!aboveResumeLevel()) gate.resume();
    }

    private void terminate(Throwable t) {
        terminated = true;
        if (t != null || badRequest != null) gate.cancel();
        clear();
        try {
            if (t != null) subscriber.onError(t);
            else subscriber.onComplete();
        } catch (Throwable ignored) {
            // §2.13: nothing left to tell a subscriber that throws from a terminal signal
        }
    }

    private void clear() {
        T item;
        while ((item = queue.poll()) != null) discard(item);
    }
}
