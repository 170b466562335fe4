package io.pgrepl.client.internal.reactive;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.LongConsumer;

/**
 * The acknowledger handed out before the stream exists: the stream can deliver (and the subscriber
 * acknowledge) before {@code LogicalReplicationStream.start} has returned. The highest early
 * acknowledgement is kept and applied once the target is attached, instead of being dropped.
 * Acknowledging is monotonic (the stream keeps the maximum), so applying one twice is harmless.
 */
public final class EarlyAcknowledger implements LongConsumer {
    private final AtomicReference<LongConsumer> target = new AtomicReference<>();
    private final AtomicLong early = new AtomicLong();

    @Override
    public void accept(long lsn) {
        LongConsumer t = target.get();
        if (t != null) {
            t.accept(lsn);
            return;
        }
        early.accumulateAndGet(lsn, (a, b) -> Long.compareUnsigned(a, b) >= 0 ? a : b);
        // attach() may have run between the read above and the store: whoever sees both drains.
        t = target.get();
        if (t != null) drain(t);
    }

    /**
     * The stream is known: apply what came early, and pass everything on from now on.
     *
     * @param t the stream's acknowledge method
     */
    public void attach(LongConsumer t) {
        target.set(t);
        drain(t);
    }

    private void drain(LongConsumer t) {
        long lsn = early.getAndSet(0);
        if (lsn != 0) t.accept(lsn);
    }
}
