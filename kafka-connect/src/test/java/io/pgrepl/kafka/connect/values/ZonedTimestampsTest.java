package io.pgrepl.kafka.connect.values;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The hand-written ZonedTimestamp text against the JDK's ISO formatter, which it replaced on the hot path. */
class ZonedTimestampsTest {
    /** Independent of the code under test: the JDK's formatter with exactly p fraction digits. */
    private static String expected(Instant i, int p) {
        DateTimeFormatter f = p == 0 ? DateTimeFormatter.ISO_OFFSET_DATE_TIME
                : new DateTimeFormatterBuilder().append(DateTimeFormatter.ISO_LOCAL_DATE).appendLiteral('T')
                        .appendPattern("HH:mm:ss").appendFraction(ChronoField.NANO_OF_SECOND, p, p, true)
                        .appendOffsetId().toFormatter(Locale.ROOT);
        return f.format(i.atOffset(ZoneOffset.UTC));
    }

    @Test
    void knownValuesAsDebeziumWritesThem() {
        assertEquals("2000-01-01T00:00:00.000000Z", ZonedTimestamps.format(Instant.parse("2000-01-01T00:00:00Z"), 6));
        assertEquals("2026-01-01T00:00:01.123Z", ZonedTimestamps.format(Instant.parse("2026-01-01T00:00:01.123456Z"), 3));
        assertEquals("1969-12-31T23:59:59.999999Z", ZonedTimestamps.format(Instant.parse("1969-12-31T23:59:59.999999Z"), 6));
        assertEquals("0001-01-01T00:00:00Z", ZonedTimestamps.format(Instant.parse("0001-01-01T00:00:00Z"), 0));
        assertEquals("9999-12-31T23:59:59.9Z", ZonedTimestamps.format(Instant.parse("9999-12-31T23:59:59.999999Z"), 1));
        assertEquals("-0043-03-15T12:00:00.000000Z", ZonedTimestamps.format(Instant.parse("-0043-03-15T12:00:00Z"), 6));
        assertEquals("infinity", ZonedTimestamps.format(Instant.MAX, 6));
        assertEquals("-infinity", ZonedTimestamps.format(Instant.MIN, 6));
    }

    @Test
    void sameAsTheJdkFormatterAcrossPostgresRangeAndEveryPrecision() {
        Random r = new Random(42);
        // PostgreSQL's timestamptz range: 4713 BC to 294276 AD, microsecond resolution.
        long min = Instant.parse("-4712-01-01T00:00:00Z").getEpochSecond();
        long max = Instant.parse("+294276-12-31T23:59:59Z").getEpochSecond();
        long y1 = Instant.parse("0001-01-01T00:00:00Z").getEpochSecond();
        long y9999 = Instant.parse("9999-12-31T23:59:59Z").getEpochSecond();
        int checked = 0;
        for (int k = 0; k < 200_000; k++) {
            long s = k % 4 == 0 ? min + Math.floorMod(r.nextLong(), max - min) : y1 + Math.floorMod(r.nextLong(), y9999 - y1);
            int micros = switch (k % 3) {
                case 0 -> 0;
                case 1 -> r.nextInt(1000) * 1000;
                default -> r.nextInt(1_000_000);
            };
            Instant i = Instant.ofEpochSecond(s, micros * 1000L);
            for (int p = 0; p <= 6; p++) {
                int digits = p;
                assertEquals(expected(i, p), ZonedTimestamps.format(i, p), () -> i + " with " + digits + " digits");
                checked++;
            }
        }
        assertEquals(1_400_000, checked);
    }
}
