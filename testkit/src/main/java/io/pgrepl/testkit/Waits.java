package io.pgrepl.testkit;

import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.function.Supplier;

/**
 * Waits that follow what they wait for: each returns as soon as its condition holds, so its ceiling
 * costs nothing on a quiet machine. The ceiling is there for a shared, loaded one (CI boxes, two
 * cores and several builds, load averages of 15 to 30), where what takes a second here takes a
 * minute: a budget sized on a quiet machine only buys a failure there.
 */
public final class Waits {
    /** How long something that takes seconds on a quiet machine may take on a loaded one. */
    public static final Duration CEILING = Duration.ofMinutes(5);

    private static final long FIRST_PAUSE_MS = 10;
    private static final long LONGEST_PAUSE_MS = 250;

    private Waits() {}

    /** {@code d}, or {@link #CEILING} if that is longer: for waits whose budget callers give in seconds. */
    public static Duration atLeastCeiling(Duration d) {
        return d.compareTo(CEILING) < 0 ? CEILING : d;
    }

    /** Until {@code condition} holds, up to {@link #CEILING}. */
    public static void until(String what, Callable<Boolean> condition) throws Exception {
        until(() -> what, CEILING, condition);
    }

    /**
     * Until {@code condition} holds, polling it (10 ms apart at first, 250 ms at most); an exception
     * it throws ends the wait. On timeout an {@link AssertionError} names {@code what}, asked for
     * then, so it may describe the last state seen.
     */
    public static void until(Supplier<String> what, Duration ceiling, Callable<Boolean> condition) throws Exception {
        value(what, ceiling, () -> condition.call() ? Boolean.TRUE : null);
    }

    /** The first non-null value {@code value} returns, polled as in {@link #until(Supplier, Duration, Callable)}. */
    public static <T> T value(Supplier<String> what, Duration ceiling, Callable<T> value) throws Exception {
        long start = System.nanoTime();
        long pause = FIRST_PAUSE_MS;
        while (true) {
            T v = value.call();
            if (v != null) return v;
            long waited = System.nanoTime() - start;
            if (waited >= ceiling.toNanos()) {
                throw new AssertionError("timed out after " + ceiling + " waiting for " + what.get());
            }
            Thread.sleep(Math.min(pause, Math.max(1, (ceiling.toNanos() - waited) / 1_000_000)));
            pause = Math.min(LONGEST_PAUSE_MS, pause * 2);
        }
    }
}
