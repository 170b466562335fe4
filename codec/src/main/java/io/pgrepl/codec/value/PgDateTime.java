package io.pgrepl.codec.value;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.PgTime;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;

/**
 * Date/time types. Binary forms count from 2000-01-01 in days (date) or microseconds;
 * the text forms are DateStyle ISO output, with " BC" after years before 1 AD.
 * 'infinity' maps to the MAX constant of the java.time class, '-infinity' to MIN.
 */
final class PgDateTime {
    private static final LocalDate PG_EPOCH_DATE = LocalDate.of(2000, 1, 1);
    private static final LocalDateTime PG_EPOCH = PG_EPOCH_DATE.atStartOfDay();
    private static final long MICROS_PER_DAY = 86_400_000_000L;

    private PgDateTime() {}

    static LocalDate date(ByteBuf buf, int index, int length, boolean binary) {
        if (binary) {
            if (length != 4) throw TextScan.bad("date", 0, "binary date must be 4 bytes, got " + length);
            int days = buf.getInt(index);
            if (days == Integer.MAX_VALUE) return LocalDate.MAX;
            if (days == Integer.MIN_VALUE) return LocalDate.MIN;
            return PG_EPOCH_DATE.plusDays(days);
        }
        String s = ascii(buf, index, length, "date");
        if (s.equals("infinity")) return LocalDate.MAX;
        if (s.equals("-infinity")) return LocalDate.MIN;
        Cursor c = new Cursor(s, "date");
        c.date();
        c.bc();
        return c.finish(c.dateValue());
    }

    static LocalTime time(ByteBuf buf, int index, int length, boolean binary) {
        if (binary) {
            if (length != 8) throw TextScan.bad("time", 0, "binary time must be 8 bytes, got " + length);
            return timeOfMicros(buf.getLong(index), "time");
        }
        Cursor c = new Cursor(ascii(buf, index, length, "time"), "time");
        LocalTime t = c.time();
        return c.finish(t);
    }

    static OffsetTime timetz(ByteBuf buf, int index, int length, boolean binary) {
        if (binary) {
            if (length != 12) throw TextScan.bad("timetz", 0, "binary timetz must be 12 bytes, got " + length);
            LocalTime t = timeOfMicros(buf.getLong(index), "timetz");
            // The zone is sent in seconds west of Greenwich, the opposite sign of an ISO offset.
            return OffsetTime.of(t, offset(-buf.getInt(index + 8), "timetz"));
        }
        Cursor c = new Cursor(ascii(buf, index, length, "timetz"), "timetz");
        LocalTime t = c.time();
        ZoneOffset z = c.offset();
        return c.finish(OffsetTime.of(t, z));
    }

    static LocalDateTime timestamp(ByteBuf buf, int index, int length, boolean binary) {
        if (binary) {
            if (length != 8) throw TextScan.bad("timestamp", 0, "binary timestamp must be 8 bytes, got " + length);
            long micros = buf.getLong(index);
            if (micros == Long.MAX_VALUE) return LocalDateTime.MAX;
            if (micros == Long.MIN_VALUE) return LocalDateTime.MIN;
            return PG_EPOCH.plusSeconds(Math.floorDiv(micros, 1_000_000L)).plusNanos(Math.floorMod(micros, 1_000_000L) * 1000L);
        }
        String s = ascii(buf, index, length, "timestamp");
        if (s.equals("infinity")) return LocalDateTime.MAX;
        if (s.equals("-infinity")) return LocalDateTime.MIN;
        Cursor c = new Cursor(s, "timestamp");
        c.date();
        c.expect(' ');
        LocalTime t = c.time();
        c.bc();
        return c.finish(LocalDateTime.of(c.dateValue(), t));
    }

    static Instant timestamptz(ByteBuf buf, int index, int length, boolean binary) {
        if (binary) {
            if (length != 8) throw TextScan.bad("timestamptz", 0, "binary timestamptz must be 8 bytes, got " + length);
            long micros = buf.getLong(index);
            if (micros == Long.MAX_VALUE) return Instant.MAX;
            if (micros == Long.MIN_VALUE) return Instant.MIN;
            return PgTime.toInstant(micros);
        }
        String s = ascii(buf, index, length, "timestamptz");
        if (s.equals("infinity")) return Instant.MAX;
        if (s.equals("-infinity")) return Instant.MIN;
        Cursor c = new Cursor(s, "timestamptz");
        c.date();
        c.expect(' ');
        LocalTime t = c.time();
        ZoneOffset z = c.offset();
        c.bc();
        return c.finish(LocalDateTime.of(c.dateValue(), t).toInstant(z));
    }

    static PgInterval interval(ByteBuf buf, int index, int length, boolean binary) {
        if (binary) {
            if (length != 16) throw TextScan.bad("interval", 0, "binary interval must be 16 bytes, got " + length);
            return new PgInterval(buf.getInt(index + 12), buf.getInt(index + 8), buf.getLong(index));
        }
        String s = ascii(buf, index, length, "interval");
        if (s.equals("infinity")) return PgInterval.POSITIVE_INFINITY;
        if (s.equals("-infinity")) return PgInterval.NEGATIVE_INFINITY;
        // IntervalStyle postgres: "[N year[s]] [N mon[s]] [N day[s]] [[-]HH:MM:SS[.ffffff]]".
        long months = 0;
        long days = 0;
        long micros = 0;
        String[] parts = s.split(" ", -1);
        try {
            for (int i = 0; i < parts.length; i++) {
                String p = parts[i];
                if (p.indexOf(':') >= 0) {
                    micros = Math.addExact(micros, intervalTime(p));
                    continue;
                }
                if (i + 1 >= parts.length) throw TextScan.bad("interval", 0, "number without unit (IntervalStyle must be postgres)");
                long n = Long.parseLong(p);
                switch (parts[++i]) {
                    case "year", "years" -> months = Math.addExact(months, Math.multiplyExact(n, 12));
                    case "mon", "mons" -> months = Math.addExact(months, n);
                    case "day", "days" -> days = Math.addExact(days, n);
                    default -> throw TextScan.bad("interval", 0, "unknown unit (IntervalStyle must be postgres)");
                }
            }
        } catch (NumberFormatException | ArithmeticException e) {
            throw TextScan.bad("interval", 0, "not an interval in IntervalStyle postgres");
        }
        if (months != (int) months || days != (int) days) throw TextScan.bad("interval", 0, "out of range");
        return new PgInterval((int) months, (int) days, micros);
    }

    private static long intervalTime(String p) {
        boolean neg = p.startsWith("-");
        String t = neg || p.startsWith("+") ? p.substring(1) : p;
        String[] hms = t.split(":", -1);
        if (hms.length != 3) throw new NumberFormatException();
        long h = Long.parseLong(hms[0]);
        long m = Long.parseLong(hms[1]);
        String sec = hms[2];
        int dot = sec.indexOf('.');
        long s = Long.parseLong(dot < 0 ? sec : sec.substring(0, dot));
        long frac = dot < 0 ? 0 : fraction(sec.substring(dot + 1));
        if (h < 0 || m < 0 || m > 59 || s < 0 || s > 59 || frac < 0) throw new NumberFormatException();
        long v = Math.addExact(Math.multiplyExact(Math.addExact(Math.multiplyExact(h, 3600), m * 60 + s), 1_000_000L), frac);
        return neg ? -v : v;
    }

    /** ".123" → 123000 µs; at most 6 digits. */
    private static long fraction(String digits) {
        if (digits.isEmpty() || digits.length() > 6) throw new NumberFormatException();
        long v = 0;
        for (int i = 0; i < 6; i++) {
            int d = i < digits.length() ? digits.charAt(i) - '0' : 0;
            if (d < 0 || d > 9) throw new NumberFormatException();
            v = v * 10 + d;
        }
        return v;
    }

    private static LocalTime timeOfMicros(long micros, String type) {
        if (micros == MICROS_PER_DAY) return LocalTime.MAX; // 24:00:00 is a valid time of day in PostgreSQL
        if (micros < 0 || micros > MICROS_PER_DAY) throw TextScan.bad(type, 0, "time of day out of range");
        return LocalTime.ofNanoOfDay(micros * 1000L);
    }

    private static ZoneOffset offset(int seconds, String type) {
        try {
            return ZoneOffset.ofTotalSeconds(seconds);
        } catch (DateTimeException e) {
            throw TextScan.bad(type, 8, "zone offset out of range");
        }
    }

    private static String ascii(ByteBuf buf, int index, int length, String type) {
        for (int i = 0; i < length; i++) {
            if (buf.getByte(index + i) < 0) throw TextScan.bad(type, i, "non-ASCII byte");
        }
        return buf.toString(index, length, StandardCharsets.US_ASCII);
    }

    /** Left-to-right reader over ISO date/time text. */
    private static final class Cursor {
        final String s;
        final String type;
        int pos;
        boolean bc;

        Cursor(String s, String type) {
            this.s = s;
            this.type = type;
        }

        int number(int minDigits, int maxDigits) {
            int from = pos;
            long v = 0;
            while (pos < s.length() && pos - from < maxDigits && Character.isDigit(s.charAt(pos))) {
                v = v * 10 + (s.charAt(pos++) - '0');
            }
            if (pos - from < minDigits) throw TextScan.bad(type, from, "expected digits");
            return (int) v;
        }

        void expect(char ch) {
            if (pos >= s.length() || s.charAt(pos) != ch) throw TextScan.bad(type, pos, "expected '" + ch + "'");
            pos++;
        }

        int year;
        int month;
        int day;

        /** Reads YYYY-MM-DD; the date is built by {@link #dateValue} once the era is known. */
        void date() {
            year = number(4, 9);
            expect('-');
            month = number(2, 2);
            expect('-');
            day = number(2, 2);
        }

        LocalTime time() {
            int h = number(2, 2);
            expect(':');
            int m = number(2, 2);
            expect(':');
            int sec = number(2, 2);
            long micros = 0;
            if (pos < s.length() && s.charAt(pos) == '.') {
                pos++;
                int from = pos;
                number(1, 6);
                micros = fraction(s.substring(from, pos));
            }
            long total = ((h * 60L + m) * 60L + sec) * 1_000_000L + micros;
            if (m > 59 || sec > 60) throw TextScan.bad(type, 0, "invalid time");
            return timeOfMicros(total, type);
        }

        ZoneOffset offset() {
            if (pos >= s.length() || (s.charAt(pos) != '+' && s.charAt(pos) != '-')) {
                throw TextScan.bad(type, pos, "expected zone offset");
            }
            int sign = s.charAt(pos++) == '-' ? -1 : 1;
            int h = number(2, 2);
            int m = 0;
            int sec = 0;
            if (pos < s.length() && s.charAt(pos) == ':') {
                pos++;
                m = number(2, 2);
                if (pos < s.length() && s.charAt(pos) == ':') {
                    pos++;
                    sec = number(2, 2);
                }
            }
            return PgDateTime.offset(sign * (h * 3600 + m * 60 + sec), type);
        }

        void bc() {
            if (s.startsWith(" BC", pos)) {
                pos += 3;
                bc = true;
            }
        }

        /** Year N BC is ISO year 1 - N (1 BC is the proleptic leap year 0). */
        LocalDate dateValue() {
            try {
                return LocalDate.of(bc ? 1 - year : year, month, day);
            } catch (DateTimeException e) {
                throw TextScan.bad(type, 0, "invalid date");
            }
        }

        <T> T finish(T value) {
            if (pos != s.length()) throw TextScan.bad(type, pos, "unexpected trailing text");
            return value;
        }
    }
}
