package io.pgrepl.kafka.connect.values;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.Locale;

/**
 * Debezium's ZonedTimestamp text: ISO-8601 in UTC with exactly the column's fraction digits. Years
 * 1 to 9999 are written digit by digit: through {@link DateTimeFormatter} this was about a seventh
 * of the record builder's time per timestamptz column (its print context and field lookups);
 * other years (BC, beyond 9999: signed, wider) go through the formatter.
 */
final class ZonedTimestamps {
    private ZonedTimestamps() {}

    private static final DateTimeFormatter[] FORMATS = new DateTimeFormatter[7];
    private static final int[] DIVISORS = {1_000_000_000, 100_000_000, 10_000_000, 1_000_000, 100_000, 10_000, 1_000};

    static {
        FORMATS[0] = DateTimeFormatter.ISO_OFFSET_DATE_TIME;
        for (int p = 1; p <= 6; p++) {
            FORMATS[p] = new DateTimeFormatterBuilder().append(DateTimeFormatter.ISO_LOCAL_DATE)
                    .appendLiteral('T').appendPattern("HH:mm:ss").appendFraction(ChronoField.NANO_OF_SECOND, p, p, true)
                    .appendOffsetId().toFormatter(Locale.ROOT);
        }
    }

    /** {@code i} with exactly {@code fractionDigits} (0..6) digits after the seconds (truncated), then {@code Z}. */
    static String format(Instant i, int fractionDigits) {
        if (i.equals(Instant.MAX)) return "infinity";
        if (i.equals(Instant.MIN)) return "-infinity";
        long seconds = i.getEpochSecond();
        int nano = i.getNano();
        LocalDate date = LocalDate.ofEpochDay(Math.floorDiv(seconds, 86_400));
        int year = date.getYear();
        // p = 0 prints a nonzero fraction in ISO_OFFSET_DATE_TIME's own way: leave that to the formatter.
        if (year < 1 || year > 9999 || (fractionDigits == 0 && nano != 0)) {
            return FORMATS[fractionDigits].format(i.atOffset(ZoneOffset.UTC));
        }
        int secondOfDay = (int) Math.floorMod(seconds, 86_400L);
        char[] c = new char[20 + (fractionDigits > 0 ? fractionDigits + 1 : 0)];
        digits(c, 0, year, 4);
        c[4] = '-';
        digits(c, 5, date.getMonthValue(), 2);
        c[7] = '-';
        digits(c, 8, date.getDayOfMonth(), 2);
        c[10] = 'T';
        digits(c, 11, secondOfDay / 3600, 2);
        c[13] = ':';
        digits(c, 14, secondOfDay / 60 % 60, 2);
        c[16] = ':';
        digits(c, 17, secondOfDay % 60, 2);
        int at = 19;
        if (fractionDigits > 0) {
            c[at++] = '.';
            digits(c, at, nano / DIVISORS[fractionDigits], fractionDigits);
            at += fractionDigits;
        }
        c[at] = 'Z';
        return new String(c);
    }

    /** {@code v} (non-negative) as exactly {@code n} decimal digits, zero-padded, at {@code c[at]}. */
    private static void digits(char[] c, int at, int v, int n) {
        for (int k = at + n - 1; k >= at; k--) {
            c[k] = (char) ('0' + v % 10);
            v /= 10;
        }
    }
}
