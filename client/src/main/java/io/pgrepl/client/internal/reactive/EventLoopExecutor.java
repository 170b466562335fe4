package io.pgrepl.client.internal.reactive;

import io.netty.util.concurrent.EventExecutor;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * A {@link FlowBuffer}'s signals on the stream's own event loop: run inline when already there
 * (a flush after a socket read, a pause, a request made inside onNext), queued to the loop
 * otherwise (a request from the application's thread). So a subscriber's signals always run on
 * the loop, never on the thread that requested; the buffer's work-in-progress counter keeps them
 * serial and re-entrant calls flat. On the loop, with demand and nothing queued, the buffer skips
 * its queue altogether ({@link FlowBuffer#emitNow}).
 */
public final class EventLoopExecutor implements Executor {
    private final EventExecutor loop;

    /** @param loop the stream's event loop */
    public EventLoopExecutor(EventExecutor loop) {
        this.loop = Objects.requireNonNull(loop, "loop");
    }

    @Override
    public void execute(Runnable task) {
        if (loop.inEventLoop()) task.run();
        else loop.execute(task);
    }

    /** {@return whether the calling thread is the loop (where a {@link FlowBuffer} may deliver at once)} */
    public boolean inEventLoop() {
        return loop.inEventLoop();
    }

    @Override
    public String toString() {
        return "EventLoopExecutor[" + loop + "]";
    }
}
