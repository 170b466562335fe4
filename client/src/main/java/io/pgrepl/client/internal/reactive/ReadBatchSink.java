package io.pgrepl.client.internal.reactive;

import io.netty.channel.EventLoop;
import java.util.function.Consumer;

/**
 * The event loop's side of a {@link FlowBuffer}: items made on the loop are {@linkplain
 * FlowBuffer#offer offered} without waking the subscriber's thread, and one task queued behind the
 * current pass of the loop {@linkplain FlowBuffer#flush flushes} them. Netty runs queued tasks
 * after a socket read has been handled (all its frames decoded), so the subscriber is woken once
 * per read, not once per change; frames decoded on a resume (inside a task, with no read) are
 * flushed the same way, by the next task. Items made off the loop are pushed as before.
 *
 * <p>On event-loop delivery, an item the subscriber can take at once skips the queue and the flush
 * ({@link #deliverNow}); the others queue behind what waits, in order.
 *
 * @param <T> the item type
 */
public final class ReadBatchSink<T> implements Consumer<T> {
    private final FlowBuffer<T> buffer;
    private final EventLoop loop;
    private final Runnable flushTask = this::flush;
    /** A flush task is queued on the loop (event loop only). */
    private boolean flushQueued;

    /**
     * @param buffer where items go
     * @param loop   the event loop that makes them
     */
    public ReadBatchSink(FlowBuffer<T> buffer, EventLoop loop) {
        this.buffer = buffer;
        this.loop = loop;
    }

    @Override
    public void accept(T item) {
        if (!loop.inEventLoop()) {
            buffer.push(item);
            return;
        }
        if (!buffer.emitNow(item)) queue(item);
    }

    /**
     * Event loop: delivers {@code item} now if the subscriber can take it, as {@link FlowBuffer#emitNow}
     * (event-loop delivery only); the item need not outlive this call. Else does nothing.
     *
     * @param item the item
     * @return true if it was taken; false: {@link #queue} it (or a copy of it)
     */
    public boolean deliverNow(T item) {
        return buffer.emitNow(item);
    }

    /** {@return whether {@link #deliverNow} can ever take an item (event-loop delivery)} */
    public boolean deliversNow() {
        return buffer.emitsNow();
    }

    /**
     * Event loop: queues {@code item} behind what waits; the subscriber is woken after the read.
     *
     * @param item the item
     */
    public void queue(T item) {
        buffer.offer(item);
        if (!flushQueued) {
            flushQueued = true;
            try {
                loop.execute(flushTask);
            } catch (RuntimeException rejected) {
                // the loop is shutting down: wake the subscriber now rather than never
                flushQueued = false;
                buffer.flush();
            }
        }
    }

    private void flush() {
        flushQueued = false;
        buffer.flush();
    }
}
