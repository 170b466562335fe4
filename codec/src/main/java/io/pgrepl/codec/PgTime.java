package io.pgrepl.codec;

import java.time.Instant;

/**
 * PostgreSQL wire timestamps: signed microseconds since 2000-01-01 00:00:00 UTC.
 * Kept as {@code long} on the hot path; converted to {@link Instant} only on request.
 */
public final class PgTime {
    /** Microseconds between the Unix epoch and the PostgreSQL epoch. */
    public static final long PG_EPOCH_UNIX_MICROS = 946_684_800_000_000L;

    private PgTime() {}

    /** Seconds between the Unix epoch and the PostgreSQL epoch. */
    public static final long PG_EPOCH_UNIX_SECONDS = PG_EPOCH_UNIX_MICROS / 1_000_000L;

    /**
     * Converts without overflow over the whole range a server can send (4713 BC to 294276 AD):
     * the seconds are split off before shifting epochs, since shifting the microseconds first
     * overflows a long for the last ~30 years PostgreSQL allows.
     *
     * @param pgMicros microseconds since 2000-01-01 00:00 UTC
     * @return the same instant
     */
    public static Instant toInstant(long pgMicros) {
        return Instant.ofEpochSecond(Math.floorDiv(pgMicros, 1_000_000L) + PG_EPOCH_UNIX_SECONDS,
                Math.floorMod(pgMicros, 1_000_000L) * 1_000L);
    }

    /**
     * The inverse of {@link #toInstant}.
     *
     * @param instant an instant
     * @return microseconds since 2000-01-01 00:00 UTC (sub-microsecond digits dropped)
     * @throws ArithmeticException if the instant is beyond a long of microseconds
     */
    public static long fromInstant(Instant instant) {
        return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000L)
                - PG_EPOCH_UNIX_MICROS;
    }

    /**
     * The current time in PostgreSQL microseconds, for StandbyStatusUpdate's clock field.
     *
     * @return microseconds since 2000-01-01 00:00 UTC
     */
    public static long nowMicros() {
        Instant now = Instant.now();
        return fromInstant(now);
    }
}
