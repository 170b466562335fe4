package io.pgrepl.kafka.connect.values;

import io.pgrepl.codec.value.PgInterval;
import io.pgrepl.kafka.connect.PgreplConnectorConfig.IntervalMode;
import io.pgrepl.kafka.connect.PgreplConnectorConfig.TimePrecisionMode;
import io.pgrepl.kafka.connect.PgreplConnectorConfig;
import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.function.Function;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;

/**
 * date, time, timestamp and interval as Debezium's PostgreSQL connector writes them under each
 * {@code time.precision.mode} and {@code interval.handling.mode}: the schema a column's declared
 * precision (its typmod) picks, and the value in that unit. timestamptz and timetz are the same in
 * every mode (see {@link ValueConverters}).
 */
final class TemporalConverters {
    static final String DATE = "io.debezium.time.Date";
    static final String TIME_MS = "io.debezium.time.Time";
    static final String MICRO_TIME = "io.debezium.time.MicroTime";
    static final String NANO_TIME = "io.debezium.time.NanoTime";
    static final String TIMESTAMP_MS = "io.debezium.time.Timestamp";
    static final String MICRO_TIMESTAMP = "io.debezium.time.MicroTimestamp";
    static final String NANO_TIMESTAMP = "io.debezium.time.NanoTimestamp";
    static final String ISO_DATE = "io.debezium.time.IsoDate";
    static final String ISO_TIME = "io.debezium.time.IsoTime";
    static final String ISO_TIMESTAMP = "io.debezium.time.IsoTimestamp";
    static final String MICRO_DURATION = "io.debezium.time.MicroDuration";
    static final String INTERVAL = "io.debezium.time.Interval";
    private static final long MICROS_PER_DAY = 86_400_000_000L;
    /** Debezium's MicroDuration: a month is 365.25 / 12 = 30.4375 days, a whole number of microseconds. */
    static final long MICROS_PER_MONTH_AVG = 30 * MICROS_PER_DAY + MICROS_PER_DAY * 7 / 16;
    /**
     * Debezium's timestamp for 'infinity' and '-infinity' in every mode: the instant the PostgreSQL
     * JDBC driver's infinity constants (milliseconds) make when read as microseconds, in snapshots and
     * streams alike; consumers of its topics may look for these values.
     */
    static final LocalDateTime INFINITY = ofEpochMicros(9_223_372_036_825_200_000L);
    static final LocalDateTime MINUS_INFINITY = ofEpochMicros(-9_223_372_036_832_400_000L);

    /** A schema and the conversion of a decoded value to it. */
    record Mapping(SchemaBuilder schema, Function<Object, Object> convert) {}

    private TemporalConverters() {}

    /** date (decoded as LocalDate; LocalDate.MAX / MIN for ±infinity). */
    static Mapping date(TimePrecisionMode mode) {
        return switch (mode) {
            case CONNECT -> new Mapping(Date.builder(), v -> new java.util.Date(clampDays((LocalDate) v) * 86_400_000L));
            case ISOSTRING -> new Mapping(SchemaBuilder.string().name(ISO_DATE).version(1),
                    v -> DateTimeFormatter.ISO_OFFSET_DATE.format(((LocalDate) v).atStartOfDay().atOffset(ZoneOffset.UTC)));
            default -> new Mapping(SchemaBuilder.int32().name(DATE).version(1), v -> (int) clampDays((LocalDate) v));
        };
    }

    /** time(p) (decoded as LocalTime; LocalTime.MAX for 24:00:00); typmod -1 is precision 6. */
    static Mapping time(TimePrecisionMode mode, int typmod) {
        int p = typmod < 0 ? 6 : typmod;
        return switch (mode) {
            case CONNECT -> new Mapping(Time.builder(), v -> new java.util.Date(microOfDay((LocalTime) v) / 1000));
            case ISOSTRING -> new Mapping(SchemaBuilder.string().name(ISO_TIME).version(1),
                    v -> DateTimeFormatter.ISO_OFFSET_TIME.format(((LocalTime) v).equals(LocalTime.MAX) ? LocalTime.MIDNIGHT.atOffset(ZoneOffset.UTC)
                            : ((LocalTime) v).atOffset(ZoneOffset.UTC)));
            case NANOSECONDS -> new Mapping(SchemaBuilder.int64().name(NANO_TIME).version(1), v -> microOfDay((LocalTime) v) * 1000);
            case ADAPTIVE -> p <= 3
                    ? new Mapping(SchemaBuilder.int32().name(TIME_MS).version(1), v -> (int) (microOfDay((LocalTime) v) / 1000))
                    : new Mapping(SchemaBuilder.int64().name(MICRO_TIME).version(1), v -> microOfDay((LocalTime) v));
            default -> new Mapping(SchemaBuilder.int64().name(MICRO_TIME).version(1), v -> microOfDay((LocalTime) v));
        };
    }

    /** timestamp(p) (decoded as LocalDateTime; MAX / MIN for ±infinity); typmod -1 is precision 6. */
    static Mapping timestamp(TimePrecisionMode mode, int typmod) {
        int p = typmod < 0 ? 6 : typmod;
        return switch (mode) {
            case CONNECT -> new Mapping(Timestamp.builder(), v -> new java.util.Date(Math.floorDiv(epochMicros(finite(v)), 1000)));
            case ISOSTRING -> new Mapping(SchemaBuilder.string().name(ISO_TIMESTAMP).version(1),
                    v -> DateTimeFormatter.ISO_OFFSET_DATE_TIME.format(finite(v).atOffset(ZoneOffset.UTC)));
            case MICROSECONDS -> micros();
            case NANOSECONDS -> new Mapping(SchemaBuilder.int64().name(NANO_TIMESTAMP).version(1), v -> epochNanos(finite(v)));
            default -> p <= 3
                    ? new Mapping(SchemaBuilder.int64().name(TIMESTAMP_MS).version(1), v -> Math.floorDiv(epochMicros(finite(v)), 1000))
                    : micros();
        };
    }

    private static Mapping micros() {
        return new Mapping(SchemaBuilder.int64().name(MICRO_TIMESTAMP).version(1), v -> epochMicros(finite(v)));
    }

    /** interval: Debezium's MicroDuration (numeric) or ISO-8601 text (string). */
    static Mapping interval(IntervalMode mode) {
        if (mode == IntervalMode.STRING) {
            return new Mapping(SchemaBuilder.string().name(INTERVAL).version(1), v -> isoInterval((PgInterval) v));
        }
        return new Mapping(SchemaBuilder.int64().name(MICRO_DURATION).version(1), v -> microDuration((PgInterval) v));
    }

    private static LocalDateTime ofEpochMicros(long micros) {
        return LocalDateTime.ofEpochSecond(Math.floorDiv(micros, 1_000_000L), (int) Math.floorMod(micros, 1_000_000L) * 1000,
                ZoneOffset.UTC);
    }

    private static LocalDateTime finite(Object v) {
        LocalDateTime t = (LocalDateTime) v;
        if (t.equals(LocalDateTime.MAX)) return INFINITY;
        if (t.equals(LocalDateTime.MIN)) return MINUS_INFINITY;
        return t;
    }

    static long clampDays(LocalDate d) {
        if (d.equals(LocalDate.MAX)) return Integer.MAX_VALUE;
        if (d.equals(LocalDate.MIN)) return Integer.MIN_VALUE;
        return d.toEpochDay();
    }

    /** 24:00:00 (LocalTime.MAX from the decoder) is a whole day, as PostgreSQL means it. */
    static long microOfDay(LocalTime t) {
        if (t.equals(LocalTime.MAX)) return MICROS_PER_DAY;
        return t.toNanoOfDay() / 1000;
    }

    /** Values beyond a long's range of microseconds saturate at Long.MAX_VALUE / MIN_VALUE. */
    static long epochMicros(LocalDateTime t) {
        long seconds = t.toEpochSecond(ZoneOffset.UTC);
        try {
            return Math.addExact(Math.multiplyExact(seconds, 1_000_000L), t.getNano() / 1000);
        } catch (ArithmeticException e) {
            return seconds > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
        }
    }

    /** Values beyond a long's range of nanoseconds (before 1677, after 2262) saturate. */
    static long epochNanos(LocalDateTime t) {
        long micros = epochMicros(t);
        try {
            return Math.multiplyExact(micros, 1000L);
        } catch (ArithmeticException e) {
            return micros > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
        }
    }

    /**
     * Debezium's MicroDuration (int64): months at 365.25/12 days, days at 24 h. Computed exactly
     * (Debezium goes through a double, which differs beyond 2^53 µs, about 285 years); infinite
     * intervals and sums beyond a long saturate at Long.MAX_VALUE / MIN_VALUE.
     */
    static long microDuration(PgInterval v) {
        if (v.equals(PgInterval.POSITIVE_INFINITY)) return Long.MAX_VALUE;
        if (v.equals(PgInterval.NEGATIVE_INFINITY)) return Long.MIN_VALUE;
        try {
            return Math.addExact(Math.addExact(Math.multiplyExact((long) v.months(), MICROS_PER_MONTH_AVG),
                    Math.multiplyExact((long) v.days(), MICROS_PER_DAY)), v.micros());
        } catch (ArithmeticException e) {
            double approx = (double) v.months() * MICROS_PER_MONTH_AVG + (double) v.days() * MICROS_PER_DAY + v.micros();
            return approx > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
        }
    }

    /**
     * Debezium's Interval text, {@code P<y>Y<m>M<d>DT<h>H<m>M<s>S}: years and months from the
     * months, hours and minutes from the time part, each carrying its own sign as PostgreSQL keeps
     * them; the seconds without trailing zeros. Infinite intervals (PostgreSQL 17+) are
     * {@code infinity} / {@code -infinity}.
     */
    static String isoInterval(PgInterval v) {
        if (v.equals(PgInterval.POSITIVE_INFINITY)) return "infinity";
        if (v.equals(PgInterval.NEGATIVE_INFINITY)) return "-infinity";
        long micros = v.micros();
        long hours = micros / 3_600_000_000L;
        long minutes = micros % 3_600_000_000L / 60_000_000L;
        BigDecimal seconds = BigDecimal.valueOf(micros % 60_000_000L, 6).stripTrailingZeros();
        return "P" + v.months() / 12 + "Y" + v.months() % 12 + "M" + v.days() + "DT" + hours + "H" + minutes + "M"
                + seconds.toPlainString() + "S";
    }
}
