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
