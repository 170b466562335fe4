package io.pgrepl.client.stream;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential backoff with jitter between reconnect attempts.
 *
 * @param initialDelay  delay before the first retry
 * @param maxDelay      cap of the delay
 * @param multiplier    growth per failed attempt (≥ 1)
 * @param jitter        0–1: the delay is drawn from [d·(1−jitter), d]
 * @param maxAttempts   consecutive failed attempts before giving up; 0 = never give up
 * @param slotInUseWait how long START_REPLICATION is retried (same backoff) while the slot is
 *                      held by another connection (55006), counted from the first such refusal
 *                      in a row; then the stream fails with {@link ReplicationSlotException}
 *                      ({@link ReplicationSlotException.Condition#IN_USE IN_USE}).
 *                      {@link Duration#ZERO}: fail at the first refusal.
 */
public record ReconnectPolicy(Duration initialDelay, Duration maxDelay, double multiplier, double jitter, int maxAttempts,
                              Duration slotInUseWait) {
    /**
     * The default wait for a held slot: wal_sender_timeout's default. After a connection dies
     * silently (a half-open network), the old walsender keeps the slot until the server times it
     * out; a reconnect must outwait it, but not wait forever for a second consumer.
     */
    public static final Duration DEFAULT_SLOT_IN_USE_WAIT = Duration.ofSeconds(60);

    /**
     * Checks the values.
     *
     * @param initialDelay  delay before the first retry
     * @param maxDelay      cap of the delay
     * @param multiplier    growth per failed attempt (≥ 1)
     * @param jitter        0–1: the delay is drawn from [d·(1−jitter), d]
     * @param maxAttempts   consecutive failed attempts before giving up; 0 = never give up
     * @param slotInUseWait how long START_REPLICATION is retried while the slot is held by another connection
     * @throws IllegalArgumentException for negative delays, {@code maxDelay < initialDelay}, a multiplier below 1,
     *         a jitter outside [0, 1], negative {@code maxAttempts} or a null or negative {@code slotInUseWait}
     */
    public ReconnectPolicy {
        if (initialDelay.isNegative() || maxDelay.compareTo(initialDelay) < 0) throw new IllegalArgumentException("delays");
        if (multiplier < 1) throw new IllegalArgumentException("multiplier must be >= 1");
        if (jitter < 0 || jitter > 1) throw new IllegalArgumentException("jitter must be within [0, 1]");
        if (maxAttempts < 0) throw new IllegalArgumentException("maxAttempts must be >= 0");
        if (slotInUseWait == null || slotInUseWait.isNegative()) throw new IllegalArgumentException("slotInUseWait must be >= 0");
    }

    /**
     * With {@link #DEFAULT_SLOT_IN_USE_WAIT}.
     *
     * @param initialDelay delay before the first retry
     * @param maxDelay     cap of the delay
     * @param multiplier   growth per failed attempt (≥ 1)
     * @param jitter       0–1: the delay is drawn from [d·(1−jitter), d]
     * @param maxAttempts  consecutive failed attempts before giving up; 0 = never give up
     */
    public ReconnectPolicy(Duration initialDelay, Duration maxDelay, double multiplier, double jitter, int maxAttempts) {
        this(initialDelay, maxDelay, multiplier, jitter, maxAttempts, DEFAULT_SLOT_IN_USE_WAIT);
    }

    /**
     * 200 ms doubling up to 30 s, 50 % jitter, unlimited attempts, 60 s wait for a held slot.
     *
     * @return the default policy
     */
    public static ReconnectPolicy defaults() {
        return new ReconnectPolicy(Duration.ofMillis(200), Duration.ofSeconds(30), 2.0, 0.5, 0);
    }

    /**
     * The same backoff with another wait for a slot held by another connection.
     *
     * @param wait how long 55006 refusals are retried; zero fails at the first
     * @return the new policy
     */
    public ReconnectPolicy withSlotInUseWait(Duration wait) {
        return new ReconnectPolicy(initialDelay, maxDelay, multiplier, jitter, maxAttempts, wait);
    }

    /**
     * Delay before attempt {@code n} (1 = first retry).
     *
     * @param n the attempt number, 1 for the first retry
     * @return the delay, with jitter drawn afresh on each call
     */
    public Duration delay(int n) {
        double d = initialDelay.toMillis() * Math.pow(multiplier, Math.max(0, n - 1));
        d = Math.min(d, maxDelay.toMillis());
        double low = d * (1 - jitter);
        return Duration.ofMillis((long) (low + ThreadLocalRandom.current().nextDouble() * (d - low)));
    }
}
