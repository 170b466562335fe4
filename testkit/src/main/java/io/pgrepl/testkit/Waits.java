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

    /**
     * {@code read}'s value once it stops moving: two reads a second apart that agree, up to
     * {@link #CEILING}. For the cumulative statistics (pg_stat_user_tables' scan counts): before 15
     * the collector gets each backend's counts up to half a second late, later on a loaded machine,
     * so a first read can miss a set-up's own scans and blame them on what runs after it.
     */
    public static long settled(String what, Callable<Long> read) throws Exception {
        long deadline = System.nanoTime() + CEILING.toNanos();
        long last = read.call();
        while (System.nanoTime() < deadline) {
            Thread.sleep(1000);
            long now = read.call();
            if (now == last) return now;
            last = now;
        }
        throw new AssertionError("timed out after " + CEILING + " waiting for " + what + " to stop moving (last " + last + ")");
    }
}
