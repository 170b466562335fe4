package io.pgrepl.flink;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.flink.util.CloseableIterator;

/** Reads a job's collected results on a thread of its own until a condition holds, failing (and cancelling the job) at a deadline. */
final class Drain {
    private Drain() {}

    /**
     * Hands each element to {@code until} until it returns true.
     *
     * @param state what the failure message shows at the deadline
     */
    static <T> void until(CloseableIterator<T> it, Predicate<T> until, Duration timeout, Supplier<String> state) throws Exception {
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread reader = new Thread(() -> {
            try {
                while (it.hasNext()) {
                    if (until.test(it.next())) return;
                }
                failed.set(new AssertionError("the job ended before the condition held"));
            } catch (Throwable e) {
                failed.set(e);
            }
        }, "collect");
        reader.start();
        reader.join(timeout.toMillis());
        if (reader.isAlive()) {
            it.close(); // cancels the job; hasNext() then ends
            reader.join(30_000);
            throw new AssertionError("not reached within " + timeout.toSeconds() + " s: " + state.get());
        }
        if (failed.get() instanceof Exception e) throw e;
        if (failed.get() instanceof Error e) throw e;
        it.close();
    }
}
