package io.pgrepl.cli;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.pgrepl.codec.value.PgInterval;
import io.pgrepl.codec.value.PgType;
import io.pgrepl.codec.value.PgValues;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.format.DateTimeFormatter;
import java.util.List;

/**
 * One column value as typed JSON (the {@code --format json} schema): integers, floats and numeric
 * as JSON numbers copied from the server's text (NaN and ±Infinity as strings), bool as
 * true/false, json/jsonb embedded, arrays of known element types as JSON arrays, timestamptz as
 * RFC 3339 UTC (like {@code commit_time}), timestamp as ISO 8601 local date-time, bytea as base64,
 * anything else as its text. Binary values ({@code --binary}) decode to the same JSON; a binary
 * value of a type this program does not know is written as base64 of its bytes.
 */
final class ValueJson {
    private ValueJson() {}

    /**
     * A value read in place: {@code n} bytes of {@code b} from {@code at} (a snapshot row's view of
     * its COPY frame, or {@link TxJson}'s reusable buffer); copied only into the output.
     */
    static void write(JsonBytes o, int typeOid, boolean binary, ByteBuf b, int at, int n) {
        if (!binary) {
            switch (typeOid) {
                case PgType.INT2, PgType.INT4, PgType.INT8, PgType.OID, PgType.XID,
                        PgType.FLOAT4, PgType.FLOAT8, PgType.NUMERIC -> {
                    if (isJsonNumber(b, at, n)) o.raw(b, at, n);
                    else o.utf8(b, at, n); // NaN, Infinity, -Infinity
                    return;
                }
                case PgType.BOOL -> {
                    o.ascii(n == 1 && b.getByte(at) == 't' ? "true" : "false");
                    return;
                }
                case PgType.JSON, PgType.JSONB -> {
                    embedJson(o, b, at, n);
                    return;
                }
                case PgType.TEXT, PgType.VARCHAR, PgType.BPCHAR, PgType.NAME, PgType.DATE, PgType.TIME,
                        PgType.TIMETZ, PgType.UUID, PgType.INTERVAL -> {
                    o.utf8(b, at, n);
                    return;
                }
                case PgType.TIMESTAMPTZ -> {
                    if (utcTimestamp(o, b, at, n)) return;
                }
                default -> {
                    if (typeOid != PgType.BYTEA && typeOid != PgType.TIMESTAMP && typeOid != PgType.TIMESTAMPTZ
                            && PgType.elementOf(typeOid) == 0) {
                        o.utf8(b, at, n); // a type this program does not know: its text
                        return;
                    }
                }
            }
        } else if (typeOid == PgType.JSONB && n > 0 && b.getByte(at) == 1) {
            embedJson(o, b, at + 1, n - 1);
            return;
        } else if (typeOid == PgType.JSON) {
            embedJson(o, b, at, n);
            return;
        }
        Object v = PgValues.decode(typeOid, binary, b, at, n);
        object(o, v, PgType.elementOf(typeOid) != 0 ? PgType.elementOf(typeOid) : typeOid, binary);
    }

    /** A decoded value (from {@link PgValues#decode}); {@code oid} is the (element) type. */
    static void object(JsonBytes o, Object v, int oid, boolean binary) {
        if (v == null) {
            o.ascii("null");
        } else if (v instanceof Boolean bool) {
            o.ascii(bool ? "true" : "false");
        } else if (v instanceof Short || v instanceof Integer || v instanceof Long) {
            o.num(((Number) v).longValue());
        } else if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            if (Double.isNaN(d)) o.str("NaN");
            else if (Double.isInfinite(d)) o.str(d > 0 ? "Infinity" : "-Infinity");
            else o.ascii(v.toString());
        } else if (v instanceof BigDecimal bd) {
            o.ascii(bd.toString());
        } else if (v instanceof String s) {
            if (oid == PgType.JSON || oid == PgType.JSONB) {
                byte[] b = s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
                embedJson(o, Unpooled.wrappedBuffer(b), 0, b.length);
            } else {
                o.str(s);
            }
        } else if (v instanceof byte[] bytes) {
            o.base64(bytes, 0, bytes.length);
        } else if (v instanceof Instant i) {
            o.str(i.equals(Instant.MAX) ? "infinity" : i.equals(Instant.MIN) ? "-infinity" : i.toString());
        } else if (v instanceof LocalDateTime t) {
            o.str(t.equals(LocalDateTime.MAX) ? "infinity" : t.equals(LocalDateTime.MIN) ? "-infinity"
                    : DateTimeFormatter.ISO_LOCAL_DATE_TIME.format(t));
        } else if (v instanceof LocalDate d) {
            o.str(d.equals(LocalDate.MAX) ? "infinity" : d.equals(LocalDate.MIN) ? "-infinity" : d.toString());
        } else if (v instanceof LocalTime t) {
            o.str(t.equals(LocalTime.MAX) ? "24:00:00" : DateTimeFormatter.ISO_LOCAL_TIME.format(t));
        } else if (v instanceof OffsetTime t) {
            o.str(DateTimeFormatter.ISO_OFFSET_TIME.format(t));
        } else if (v instanceof PgInterval iv) {
            o.str(interval(iv));
        } else if (v instanceof List<?> list) {
            o.raw('[');
            for (int i = 0; i < list.size(); i++) {
                if (i > 0) o.raw(',');
                object(o, list.get(i), oid, binary);
            }
            o.raw(']');
        } else {
            o.str(v.toString()); // uuid, pg_lsn as number of bytes, ...
        }
    }

    /**
     * json/jsonb text as is: it is valid JSON from the server. Raw line breaks (legal JSON
     * whitespace, kept by the json type) become spaces so that one change stays one line.
     */
    private static void embedJson(JsonBytes o, ByteBuf b, int off, int n) {
        int start = o.length();
        o.raw(b, off, n);
        if (b.indexOf(off, off + n, (byte) '\n') < 0 && b.indexOf(off, off + n, (byte) '\r') < 0) return;
        o.truncate(start);
        for (int j = off; j < off + n; j++) {
            byte c = b.getByte(j);
            o.raw(c == '\n' || c == '\r' ? (byte) ' ' : c);
        }
    }

    /**
     * The common case without parsing: {@code YYYY-MM-DD HH:MM:SS[.f]+00} (a UTC session) becomes
     * {@code "YYYY-MM-DDTHH:MM:SS[.fff]Z"}, the fraction padded to 3, 6 or 9 digits as
     * {@link Instant#toString()} (and so {@code commit_time}) prints it. False for anything else.
     */
    static boolean utcTimestamp(JsonBytes o, ByteBuf b, int at, int n) {
        if (n < 22 || b.getByte(at + n - 3) != '+' || b.getByte(at + n - 2) != '0' || b.getByte(at + n - 1) != '0'
                || b.getByte(at + 10) != ' ' || b.getByte(at + 4) != '-' || b.getByte(at + 7) != '-'
                || b.getByte(at + 13) != ':' || b.getByte(at + 16) != ':') {
            return false;
        }
        int fraction = n - 3 - 19; // ".ffffff" or nothing
        if (fraction != 0 && (fraction < 2 || b.getByte(at + 19) != '.')) return false;
        for (int i = 0; i < 19; i++) {
            byte c = b.getByte(at + i);
            if (i != 4 && i != 7 && i != 10 && i != 13 && i != 16 && (c < '0' || c > '9')) return false;
        }
        o.raw('"').raw(b, at, 10).raw('T').raw(b, at + 11, 8);
        if (fraction > 0) {
            int digits = fraction - 1;
            o.raw(b, at + 19, fraction);
            for (int pad = (3 - digits % 3) % 3; pad > 0; pad--) o.raw('0');
        }
        o.raw('Z').raw('"');
        return true;
    }

    /** RFC 8259 number grammar: what integer, float and numeric text is, except NaN and infinities. */
    static boolean isJsonNumber(ByteBuf b, int at, int len) {
        int i = at;
        int n = at + len;
        if (i < n && b.getByte(i) == '-') i++;
        if (i >= n) return false;
        byte c = b.getByte(i);
        if (c == '0') {
            i++;
        } else if (c >= '1' && c <= '9') {
            while (i < n && digit(b.getByte(i))) i++;
        } else {
            return false;
        }
        if (i < n && b.getByte(i) == '.') {
            int s = ++i;
            while (i < n && digit(b.getByte(i))) i++;
            if (i == s) return false;
        }
        if (i < n && (b.getByte(i) == 'e' || b.getByte(i) == 'E')) {
            i++;
            if (i < n && (b.getByte(i) == '+' || b.getByte(i) == '-')) i++;
            int s = i;
            while (i < n && digit(b.getByte(i))) i++;
            if (i == s) return false;
        }
        return i == n;
    }

    private static boolean digit(byte c) {
        return c >= '0' && c <= '9';
    }

    /** An interval as PostgreSQL's default IntervalStyle (postgres) prints it. */
    static String interval(PgInterval iv) {
        if (iv.equals(PgInterval.POSITIVE_INFINITY)) return "infinity";
        if (iv.equals(PgInterval.NEGATIVE_INFINITY)) return "-infinity";
        StringBuilder s = new StringBuilder();
        int years = iv.months() / 12;
        int months = iv.months() % 12;
        boolean negative = false;
        if (years != 0) {
            s.append(years).append(Math.abs(years) == 1 ? " year" : " years");
            negative = years < 0;
        }
        if (months != 0) {
            if (s.length() > 0) s.append(' ');
            s.append(negative && months > 0 ? "+" : "").append(months).append(Math.abs(months) == 1 ? " mon" : " mons");
            negative = months < 0;
        }
        if (iv.days() != 0) {
            if (s.length() > 0) s.append(' ');
            s.append(negative && iv.days() > 0 ? "+" : "").append(iv.days()).append(Math.abs(iv.days()) == 1 ? " day" : " days");
            negative = iv.days() < 0;
        }
        long us = iv.micros();
        if (us != 0 || s.length() == 0) {
            if (s.length() > 0) s.append(' ');
            if (us < 0) s.append('-');
            else if (negative) s.append('+');
            long a = Math.abs(us);
            s.append(String.format("%02d:%02d:%02d", a / 3_600_000_000L, a / 60_000_000L % 60, a / 1_000_000L % 60));
            long frac = a % 1_000_000L;
            if (frac != 0) {
                String f = String.format("%06d", frac);
                s.append('.').append(f.replaceAll("0+$", ""));
            }
        }
        return s.toString();
    }
}
