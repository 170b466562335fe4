package io.pgrepl.codec.value;

import java.time.Duration;

/**
 * A PostgreSQL interval, kept as the server keeps it: months, days and microseconds are
 * independent (a month is not 30 days, a day is not always 24 hours), so java.time has no
 * single equivalent. PG17+ infinite intervals are all three fields at their extreme.
 *
 * @param months the months part (years are stored as 12 months)
 * @param days   the days part
 * @param micros the time part, in microseconds
 */
public record PgInterval(int months, int days, long micros) {
    /** The zero interval, {@code 00:00:00}. */
    public static final PgInterval ZERO = new PgInterval(0, 0, 0);
    /** {@code infinity} (PG17+). */
    public static final PgInterval POSITIVE_INFINITY = new PgInterval(Integer.MAX_VALUE, Integer.MAX_VALUE, Long.MAX_VALUE);
    /** {@code -infinity} (PG17+). */
    public static final PgInterval NEGATIVE_INFINITY = new PgInterval(Integer.MIN_VALUE, Integer.MIN_VALUE, Long.MIN_VALUE);

    /**
     * Whether this is {@code infinity} or {@code -infinity}.
     *
     * @return true for either infinity
     */
    public boolean isInfinite() {
        return equals(POSITIVE_INFINITY) || equals(NEGATIVE_INFINITY);
    }

    /**
     * The time part as a Duration (months and days are left out: they have no fixed length).
     *
     * @return the microseconds field as a Duration
     */
    public Duration timePart() {
        return Duration.ofSeconds(Math.floorDiv(micros, 1_000_000L), Math.floorMod(micros, 1_000_000L) * 1_000L);
    }
}
