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

    public static Instant toInstant(long pgMicros) {
        long unixMicros = pgMicros + PG_EPOCH_UNIX_MICROS;
        return Instant.ofEpochSecond(Math.floorDiv(unixMicros, 1_000_000L), Math.floorMod(unixMicros, 1_000_000L) * 1_000L);
    }

    public static long fromInstant(Instant instant) {
        return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000L), instant.getNano() / 1_000L)
                - PG_EPOCH_UNIX_MICROS;
    }

    /** The current time in PostgreSQL microseconds, for StandbyStatusUpdate's clock field. */
    public static long nowMicros() {
        Instant now = Instant.now();
        return fromInstant(now);
    }
}
