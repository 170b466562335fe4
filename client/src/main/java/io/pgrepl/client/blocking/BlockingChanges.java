package io.pgrepl.client.blocking;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.reactive.ChangeEvent;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.reactive.ReactiveReplication;
import io.pgrepl.client.reactive.ReplicationPublisher;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.tx.TxEvent;

import java.time.Duration;
import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;

/**
 * A blocking iterator over a replication publisher, for plain and virtual threads:
 * <pre>{@code
 * try (var it = BlockingChanges.open(conn, options)) {
 *     while (it.hasNext()) { var e = it.next(); ...; e.acknowledge(); }
 * }
 * }</pre>
 * It requests {@code prefetch} events and one more per event taken, so at most {@code prefetch}
 * events wait here; beyond that the publisher pauses the socket (keepalives go on). hasNext()
 * blocks until an event or the end; the stream's failure is thrown from hasNext()/next()/poll().
 * close() stops the stream cleanly and waits for it. One consumer thread at a time.
 *
 * <p>Unless the flow options name an executor, no delivery thread sits between the stream and the
 * consumer: this iterator's subscriber only adds to a queue that its demand keeps from filling, so
 * it runs where the signal comes from (the event loop, once per socket read, or the consumer's own
 * {@code request}). A consumer that keeps up is then woken once per read.
 */
public final class BlockingChanges<T> implements Iterator<T>, AutoCloseable {
    private static final Object COMPLETE = new Object();

    private final BlockingQueue<Object> queue;
    private final CompletionStage<Void> terminated;
    /** True on the thread that would complete {@code terminated}: close() must not wait there. */
    private final BooleanSupplier onEventLoop;
    private volatile Flow.Subscription subscription;
    private Object next;
    private boolean finished;
    private Throwable failure;

    private BlockingChanges(Flow.Publisher<T> publisher, int prefetch, CompletionStage<Void> terminated,
                            BooleanSupplier onEventLoop) {
        if (prefetch < 1) throw new IllegalArgumentException("prefetch must be positive");
        this.queue = new ArrayBlockingQueue<>(prefetch + 1); // + the terminal signal
        this.terminated = terminated;
        this.onEventLoop = onEventLoop != null ? onEventLoop : () -> false;
        publisher.subscribe(new Flow.Subscriber<T>() {
            @Override
            public void onSubscribe(Flow.Subscription s) {
                subscription = s;
                s.request(prefetch);
            }

            @Override
            public void onNext(T item) {
                queue.add(item); // never full: demand never exceeds the free slots
            }

            @Override
            public void onError(Throwable t) {
                queue.add(new Failure(t));
            }

            @Override
            public void onComplete() {
                queue.add(COMPLETE);
            }
        });
    }

    private record Failure(Throwable error) {}

    /**
     * One {@link ChangeEvent} per pgoutput message, with the default flow options and a prefetch of 256 events.
     *
     * @param connection an idle connection opened with {@code replication=database}
     * @param options    the slot, publications and pgoutput options
     * @return the iterator; the stream starts at once
     */
    public static BlockingChanges<ChangeEvent> open(PgConnection connection, LogicalReplicationOptions options) {
        return open(connection, options, FlowOptions.defaults(), 256);
    }

    /**
     * One {@link ChangeEvent} per pgoutput message.
     *
     * @param connection an idle connection opened with {@code replication=database}
     * @param options    the slot, publications and pgoutput options
     * @param flow       acknowledgement and buffering of the underlying publisher
     * @param prefetch   how many events are requested ahead of the consumer
     * @return the iterator; the stream starts at once
     */
    public static BlockingChanges<ChangeEvent> open(PgConnection connection, LogicalReplicationOptions options,
                                                    FlowOptions flow, int prefetch) {
        ReplicationPublisher<ChangeEvent> p = ReactiveReplication.changes(connection, options, direct(flow));
        return of(p, prefetch);
    }

    /**
     * One {@link TxEvent} per assembled transaction / non-transactional message / two-phase outcome.
     *
     * @param connection an idle connection opened with {@code replication=database}
     * @param options    the slot, publications and pgoutput options
     * @param flow       acknowledgement, buffering and transaction assembly options
     * @param prefetch   how many events are requested ahead of the consumer
     * @return the iterator; the stream starts at once
     */
    public static BlockingChanges<TxEvent> openTransactions(PgConnection connection, LogicalReplicationOptions options,
                                                            FlowOptions flow, int prefetch) {
        ReplicationPublisher<TxEvent> p = ReactiveReplication.transactions(connection, options, direct(flow));
        return of(p, prefetch);
    }

    /**
     * Any publisher; {@code terminated} (may be null) is awaited by close().
     *
     * @param <T>        the item type
     * @param publisher  the source, subscribed to at once
     * @param prefetch   how many items are requested ahead of the consumer
     * @param terminated completes when the source has released its resources, or null
     * @return the iterator
     */
    public static <T> BlockingChanges<T> of(Flow.Publisher<T> publisher, int prefetch, CompletionStage<Void> terminated) {
        return of(publisher, prefetch, terminated, null);
    }

    /**
     * Any publisher; {@code terminated} (may be null) is awaited by close(), except where
     * {@code onEventLoop} (may be null) says the calling thread is the one that completes it.
     *
     * @param <T>         the item type
     * @param publisher   the source, subscribed to at once
     * @param prefetch    how many items are requested ahead of the consumer
     * @param terminated  completes when the source has released its resources, or null
     * @param onEventLoop true on the thread that completes {@code terminated}, or null
     * @return the iterator
     */
    public static <T> BlockingChanges<T> of(Flow.Publisher<T> publisher, int prefetch, CompletionStage<Void> terminated,
                                            BooleanSupplier onEventLoop) {
        return new BlockingChanges<>(Objects.requireNonNull(publisher), prefetch, terminated, onEventLoop);
    }

    /** Signals run on the signalling thread unless the application chose an executor (see the class comment). */
    /**
     * A publisher of this library's: close() awaits its termination, except on its stream's event
     * loop (the thread that completes it).
     *
     * @param <T>       the item type
     * @param publisher the source, subscribed to at once
     * @param prefetch  how many items are requested ahead of the consumer
     * @return the iterator
     */
    public static <T> BlockingChanges<T> of(ReplicationPublisher<T> publisher, int prefetch) {
        return new BlockingChanges<>(publisher, prefetch, publisher.terminated(), onStreamLoop(publisher));
    }

    /**
     * The flow options a blocking iterator's publisher runs with: without an executor of the
     * caller's, events are queued for the consumer where the stream signals them.
     *
     * @param flow the caller's options
     * @return {@code flow}, with a direct executor if it had none
     */
    public static FlowOptions direct(FlowOptions flow) {
        return flow.executor() != null ? flow : flow.withExecutor(Runnable::run);
    }

    private static BooleanSupplier onStreamLoop(ReplicationPublisher<?> p) {
        return () -> {
            LogicalReplicationStream s = p.stream();
            return s != null && s.eventLoop().inEventLoop();
        };
    }

    @Override
    public boolean hasNext() {
        try {
            return fetch(-1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for the next change", e);
        }
    }

    @Override
    @SuppressWarnings("unchecked")
    public T next() {
        if (!hasNext()) throw new NoSuchElementException("replication stream ended");
        return take();
    }

    /**
     * The next event, waiting at most {@code timeout}; null if none arrived in time.
     * Throws {@link NoSuchElementException} once the stream has ended normally.
     *
     * @param timeout how long to wait; zero or negative does not wait
     * @return the event, or null
     * @throws InterruptedException if the thread is interrupted while waiting
     * @throws NoSuchElementException once the stream has ended normally
     */
    public T poll(Duration timeout) throws InterruptedException {
        if (!fetch(Math.max(0, timeout.toNanos()))) {
            if (finished) throw new NoSuchElementException("replication stream ended");
            return null;
        }
        return take();
    }

    @SuppressWarnings("unchecked")
    private T take() {
        T item = (T) next;
        next = null;
        Flow.Subscription s = subscription;
        if (s != null) s.request(1);
        return item;
    }

    /** @param nanos -1 = wait forever; returns true when {@link #next} holds an item */
    private boolean fetch(long nanos) throws InterruptedException {
        if (next != null) return true;
        if (finished) return rethrow();
        Object o = nanos < 0 ? queue.take() : queue.poll(nanos, TimeUnit.NANOSECONDS);
        if (o == null) return false;
        if (o == COMPLETE) {
            finished = true;
            return false;
        }
        if (o instanceof Failure f) {
            finished = true;
            failure = f.error();
            return rethrow();
        }
        next = o;
        return true;
    }

    private boolean rethrow() {
        if (failure == null) return false;
        if (failure instanceof RuntimeException re) throw re;
        if (failure instanceof Error err) throw err;
        throw new IllegalStateException(failure.getMessage(), failure);
    }

    /** {@return the events received but not taken yet} */
    public int buffered() {
        return queue.size() + (next != null ? 1 : 0);
    }

    /**
     * Cancels (stops the stream: CopyDone and the server's acknowledgement) and waits up to 30 s for it.
     *
     * @throws IllegalStateException when called on the stream's event loop, after cancelling: the
     *                               stop completes on that very thread, so waiting there would
     *                               only block it for 30 s (await the publisher's terminated() elsewhere)
     */
    @Override
    public void close() {
        Flow.Subscription s = subscription;
        if (s != null) s.cancel();
        finished = true;
        if (terminated != null && onEventLoop.getAsBoolean()) {
            throw new IllegalStateException("BlockingChanges.close() called on the stream's event loop: "
                    + "the stream is stopping, but close() cannot wait for it there");
        }
        if (terminated != null) {
            try {
                terminated.toCompletableFuture().get(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
                // the stream's own failure was (or will never be) reported through the iterator
            }
        }
    }
}
