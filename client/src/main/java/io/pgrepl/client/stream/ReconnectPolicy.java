package io.pgrepl.client.stream;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Exponential backoff with jitter between reconnect attempts.
 *
 * @param initialDelay delay before the first retry
 * @param maxDelay     cap of the delay
 * @param multiplier   growth per failed attempt (≥ 1)
 * @param jitter       0–1: the delay is drawn from [d·(1−jitter), d]
 * @param maxAttempts  consecutive failed attempts before giving up; 0 = never give up
 */
public record ReconnectPolicy(Duration initialDelay, Duration maxDelay, double multiplier, double jitter, int maxAttempts) {
    public ReconnectPolicy {
        if (initialDelay.isNegative() || maxDelay.compareTo(initialDelay) < 0) throw new IllegalArgumentException("delays");
        if (multiplier < 1) throw new IllegalArgumentException("multiplier must be >= 1");
        if (jitter < 0 || jitter > 1) throw new IllegalArgumentException("jitter must be within [0, 1]");
        if (maxAttempts < 0) throw new IllegalArgumentException("maxAttempts must be >= 0");
    }

    /** 200 ms doubling up to 30 s, 50 % jitter, unlimited attempts. */
    public static ReconnectPolicy defaults() {
        return new ReconnectPolicy(Duration.ofMillis(200), Duration.ofSeconds(30), 2.0, 0.5, 0);
    }

    /** Delay before attempt {@code n} (1 = first retry). */
    public Duration delay(int n) {
        double d = initialDelay.toMillis() * Math.pow(multiplier, Math.max(0, n - 1));
        d = Math.min(d, maxDelay.toMillis());
        double low = d * (1 - jitter);
        return Duration.ofMillis((long) (low + ThreadLocalRandom.current().nextDouble() * (d - low)));
    }
}
