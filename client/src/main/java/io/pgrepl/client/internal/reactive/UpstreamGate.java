package io.pgrepl.client.internal.reactive;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * A {@link FlowBuffer}'s hold on its source: pause, resume and cancel, applied under one lock so
 * that they reach the {@link FlowBuffer.Upstream} serially, pause and resume alternating, and
 * nothing after the cancel. An upstream connected late is told the state it missed.
 */
final class UpstreamGate {
    private final Object lock = new Object();
    private volatile FlowBuffer.Upstream upstream;
    private volatile boolean paused;
    private boolean cancelled;
    private final AtomicLong pauses = new AtomicLong();

    /** Connects the source: cancelled at once if {@code cancelNow}, else paused if a pause came first. */
    void connect(FlowBuffer.Upstream up, boolean cancelNow) {
        this.upstream = up;
        if (cancelNow) cancel();
        else synchronized (lock) {
            if (paused) up.pause();
        }
    }

    /** {@return whether the source should be paused now (read without the lock)} */
    boolean paused() {
        return paused;
    }

    /** {@return how many times the source was paused} */
    long pauses() {
        return pauses.get();
    }

    /**
     * Pauses the source unless it is paused or cancelled already, and only if {@code stillFull}
     * holds once the lock is held: the subscriber may have drained in the meantime, and its resume
     * would then never come.
     */
    void pause(BooleanSupplier stillFull) {
        synchronized (lock) {
            if (!paused && !cancelled && stillFull.getAsBoolean()) {
                paused = true;
                pauses.incrementAndGet();
                FlowBuffer.Upstream up = upstream;
                if (up != null) up.pause();
            }
        }
    }

    /** Resumes a paused source (not a cancelled one). */
    void resume() {
        synchronized (lock) {
            if (paused && !cancelled) {
                paused = false;
                FlowBuffer.Upstream up = upstream;
                if (up != null) up.resume();
            }
        }
    }

    /** Cancels the source once, if it is connected; a later {@link #connect} cancels it then. */
    void cancel() {
        FlowBuffer.Upstream up;
        synchronized (lock) {
            if (cancelled || (up = upstream) == null) return;
            cancelled = true;
        }
        up.cancel();
    }
}
