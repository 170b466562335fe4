package io.pgrepl.it.values;

import io.pgrepl.codec.value.PgInterval;
import io.pgrepl.codec.value.PgType;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;

/**
 * Edge values per type: the SQL that makes the value, the send function, and the Java value it
 * must decode to, written here by hand (never derived from the decoder).
 */
public final class ValueCases {
    /** {@code setup} is SQL run before the SELECT in the same query (e.g. {@code SET bytea_output = escape;}). */
    public record Case(int minMajor, int oid, String sql, String send, String setup, Object expected) {
        @Override
        public String toString() {
            return sql + (setup.isEmpty() ? "" : " [" + setup.trim() + "]");
        }
    }

    private final List<Case> cases = new ArrayList<>();

    private ValueCases() {}

    private void add(int oid, String sql, String send, Object expected) {
        cases.add(new Case(0, oid, sql, send, "", expected));
    }

    private void add(int minMajor, int oid, String sql, String send, Object expected) {
        cases.add(new Case(minMajor, oid, sql, send, "", expected));
    }

    private static String lit(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    private static List<Object> list(Object... items) {
        return Arrays.asList(items);
    }

    private static Instant utc(LocalDateTime t) {
        return t.toInstant(ZoneOffset.UTC);
    }

    public static List<Case> all() {
        ValueCases c = new ValueCases();
        c.scalars();
        c.dateTimes();
        c.arrays();
        return c.cases;
    }

    private void scalars() {
        add(PgType.BOOL, "true", "boolsend", true);
        add(PgType.BOOL, "false", "boolsend", false);
        for (short v : new short[] {Short.MIN_VALUE, Short.MAX_VALUE, 0, -1}) {
            add(PgType.INT2, "(" + v + ")::int2", "int2send", v);
        }
        for (int v : new int[] {Integer.MIN_VALUE, Integer.MAX_VALUE, 0, -1}) {
            add(PgType.INT4, "(" + v + ")::int4", "int4send", v);
        }
        add(PgType.INT8, "'-9223372036854775808'::int8", "int8send", Long.MIN_VALUE);
        add(PgType.INT8, "9223372036854775807::int8", "int8send", Long.MAX_VALUE);
        add(PgType.INT8, "0::int8", "int8send", 0L);
        add(PgType.INT8, "(-1)::int8", "int8send", -1L);
        add(PgType.OID, "4294967295::oid", "oidsend", 4294967295L);
        add(PgType.OID, "0::oid", "oidsend", 0L);

        add(PgType.FLOAT4, "'NaN'::float4", "float4send", Float.NaN);
        add(PgType.FLOAT4, "'Infinity'::float4", "float4send", Float.POSITIVE_INFINITY);
        add(PgType.FLOAT4, "'-Infinity'::float4", "float4send", Float.NEGATIVE_INFINITY);
        add(PgType.FLOAT4, "'-0'::float4", "float4send", -0.0f);
        add(PgType.FLOAT4, "'0.1'::float4", "float4send", 0.1f);
        add(PgType.FLOAT4, "'3.4028235e38'::float4", "float4send", Float.MAX_VALUE);
        add(PgType.FLOAT4, "'1.17549435e-38'::float4", "float4send", Float.MIN_NORMAL);
        add(PgType.FLOAT4, "'1.4e-45'::float4", "float4send", Float.MIN_VALUE);
        add(PgType.FLOAT8, "'NaN'::float8", "float8send", Double.NaN);
        add(PgType.FLOAT8, "'Infinity'::float8", "float8send", Double.POSITIVE_INFINITY);
        add(PgType.FLOAT8, "'-Infinity'::float8", "float8send", Double.NEGATIVE_INFINITY);
        add(PgType.FLOAT8, "'-0'::float8", "float8send", -0.0d);
        add(PgType.FLOAT8, "'0.1'::float8", "float8send", 0.1d);
        add(PgType.FLOAT8, "'1e308'::float8", "float8send", 1e308);
        add(PgType.FLOAT8, "'1.7976931348623157e308'::float8", "float8send", Double.MAX_VALUE);
        add(PgType.FLOAT8, "'2.2250738585072014e-308'::float8", "float8send", Double.MIN_NORMAL);
        add(PgType.FLOAT8, "'4.9e-324'::float8", "float8send", Double.MIN_VALUE);
        add(PgType.FLOAT8, "'-123456.789'::float8", "float8send", -123456.789d);

        add(PgType.NUMERIC, "0::numeric", "numeric_send", new BigDecimal("0"));
        add(PgType.NUMERIC, "'-0.000'::numeric", "numeric_send", new BigDecimal("0.000"));
        add(PgType.NUMERIC, "'NaN'::numeric", "numeric_send", Double.NaN);
        add(14, PgType.NUMERIC, "'Infinity'::numeric", "numeric_send", Double.POSITIVE_INFINITY);
        add(14, PgType.NUMERIC, "'-Infinity'::numeric", "numeric_send", Double.NEGATIVE_INFINITY);
        add(PgType.NUMERIC, "'1e-100'::numeric", "numeric_send", new BigDecimal("1e-100"));
        add(PgType.NUMERIC, "'-12345678901234567890.000012345'::numeric", "numeric_send",
                new BigDecimal("-12345678901234567890.000012345"));
        add(PgType.NUMERIC, "'10000'::numeric", "numeric_send", new BigDecimal("10000"));
        add(PgType.NUMERIC, "'0.0001'::numeric", "numeric_send", new BigDecimal("0.0001"));
        add(PgType.NUMERIC, "'1.50'::numeric(10,4)", "numeric_send", new BigDecimal("1.5000"));
        String nines = "9".repeat(1000);
        add(PgType.NUMERIC, lit(nines) + "::numeric", "numeric_send", new BigDecimal(nines));
        String mixed = "1" + "0".repeat(499) + "." + "0".repeat(499) + "1";
        add(PgType.NUMERIC, lit("-" + mixed) + "::numeric", "numeric_send", new BigDecimal("-" + mixed));
        // Scale larger than precision, and negative scale: typmods allowed from 15.
        add(15, PgType.NUMERIC, "0.00123::numeric(3,5)", "numeric_send", new BigDecimal("0.00123"));
        add(15, PgType.NUMERIC, "12345::numeric(2,-3)", "numeric_send", new BigDecimal("12000"));

        String awkward = "it's \"q\" back\\slash\ttab\nnl ünï 漢字 😀";
        add(PgType.TEXT, lit(awkward) + "::text", "textsend", awkward);
        add(PgType.TEXT, "''::text", "textsend", "");
        add(PgType.VARCHAR, lit(awkward) + "::varchar(60)", "varcharsend", awkward);
        add(PgType.VARCHAR, "'abcdef'::varchar(3)", "varcharsend", "abc");
        add(PgType.BPCHAR, "'ab'::char(5)", "bpcharsend", "ab   ");
        add(PgType.BPCHAR, "'ü😀'::char(4)", "bpcharsend", "ü😀  ");
        add(PgType.NAME, "'it''s \"n\" \\ ü😀'::name", "namesend", "it's \"n\" \\ ü😀");
        add(PgType.NAME, lit("x".repeat(70)) + "::name", "namesend", "x".repeat(63));

        add(PgType.BYTEA, "''::bytea", "byteasend", new byte[0]);
        byte[] all = new byte[256];
        for (int i = 0; i < 256; i++) all[i] = (byte) i;
        String allSql = "(SELECT decode(string_agg(lpad(to_hex(g), 2, '0'), '' ORDER BY g), 'hex') FROM generate_series(0, 255) g)";
        add(PgType.BYTEA, allSql, "byteasend", all);
        // The pre-9.0 escape output format as well.
        cases.add(new Case(0, PgType.BYTEA, allSql, "byteasend", "SET bytea_output = escape; ", all));
        cases.add(new Case(0, PgType.BYTEA, "''::bytea", "byteasend", "SET bytea_output = escape; ", new byte[0]));

        add(PgType.UUID, "'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'::uuid", "uuid_send",
                UUID.fromString("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"));
        add(PgType.UUID, "'ffffffff-ffff-ffff-ffff-ffffffffffff'::uuid", "uuid_send", new UUID(-1L, -1L));
        add(PgType.UUID, "'00000000-0000-0000-0000-000000000000'::uuid", "uuid_send", new UUID(0L, 0L));

        // json keeps its text (escapes included); jsonb normalises: keys by length then bytes, escapes resolved.
        String json = "{\"b\": [1, {\"c\": \"\\u00e9\\ud83d\\ude00\"}], \"a\" : null, \"q\": \"say \\\"hi\\\" \\\\\"}";
        add(PgType.JSON, lit(json) + "::json", "json_send", json);
        add(PgType.JSONB, lit(json) + "::jsonb", "jsonb_send", "{\"a\": null, \"b\": [1, {\"c\": \"é😀\"}], \"q\": \"say \\\"hi\\\" \\\\\"}");
        add(PgType.JSONB, "'[]'::jsonb", "jsonb_send", "[]");
        add(PgType.JSONB, "'1.50'::jsonb", "jsonb_send", "1.50");
    }

    private void dateTimes() {
        add(PgType.DATE, "'2000-01-01'::date", "date_send", LocalDate.of(2000, 1, 1));
        add(PgType.DATE, "'1999-12-31'::date", "date_send", LocalDate.of(1999, 12, 31));
        add(PgType.DATE, "'0001-01-01 BC'::date", "date_send", LocalDate.of(0, 1, 1));
        add(PgType.DATE, "'0044-03-15 BC'::date", "date_send", LocalDate.of(-43, 3, 15));
        add(PgType.DATE, "'4713-01-01 BC'::date", "date_send", LocalDate.of(-4712, 1, 1));
        add(PgType.DATE, "'4714-11-24 BC'::date", "date_send", LocalDate.of(-4713, 11, 24));
        add(PgType.DATE, "'5874897-12-31'::date", "date_send", LocalDate.of(5874897, 12, 31));
        add(PgType.DATE, "'infinity'::date", "date_send", LocalDate.MAX);
        add(PgType.DATE, "'-infinity'::date", "date_send", LocalDate.MIN);
        add(PgType.DATE, "'2024-02-29'::date", "date_send", LocalDate.of(2024, 2, 29));

        add(PgType.TIME, "'00:00'::time", "time_send", LocalTime.MIDNIGHT);
        add(PgType.TIME, "'23:59:59.999999'::time", "time_send", LocalTime.of(23, 59, 59, 999_999_000));
        add(PgType.TIME, "'12:34:56.000001'::time", "time_send", LocalTime.of(12, 34, 56, 1000));
        // 24:00:00 has no LocalTime: documented to map to LocalTime.MAX.
        add(PgType.TIME, "'24:00:00'::time", "time_send", LocalTime.MAX);

        add(PgType.TIMETZ, "'12:00+14'::timetz", "timetz_send", OffsetTime.of(12, 0, 0, 0, ZoneOffset.ofHours(14)));
        add(PgType.TIMETZ, "'00:00:00.5-12:30'::timetz", "timetz_send",
                OffsetTime.of(0, 0, 0, 500_000_000, ZoneOffset.ofHoursMinutes(-12, -30)));
        add(PgType.TIMETZ, "'23:59:59.999999+05:45'::timetz", "timetz_send",
                OffsetTime.of(23, 59, 59, 999_999_000, ZoneOffset.ofHoursMinutes(5, 45)));
        add(PgType.TIMETZ, "'01:02:03-00:00:01'::timetz", "timetz_send",
                OffsetTime.of(1, 2, 3, 0, ZoneOffset.ofTotalSeconds(-1)));
        add(PgType.TIMETZ, "'24:00:00+01'::timetz", "timetz_send", OffsetTime.of(LocalTime.MAX, ZoneOffset.ofHours(1)));

        add(PgType.TIMESTAMP, "'2000-01-01 00:00:00'::timestamp", "timestamp_send", LocalDateTime.of(2000, 1, 1, 0, 0));
        add(PgType.TIMESTAMP, "'1999-12-31 23:59:59.999999'::timestamp", "timestamp_send",
                LocalDateTime.of(1999, 12, 31, 23, 59, 59, 999_999_000));
        add(PgType.TIMESTAMP, "'1970-01-01 00:00:00.000001'::timestamp", "timestamp_send",
                LocalDateTime.of(1970, 1, 1, 0, 0, 0, 1000));
        add(PgType.TIMESTAMP, "'0044-03-15 12:30:00.25 BC'::timestamp", "timestamp_send",
                LocalDateTime.of(-43, 3, 15, 12, 30, 0, 250_000_000));
        add(PgType.TIMESTAMP, "'4714-11-24 00:00:00 BC'::timestamp", "timestamp_send", LocalDateTime.of(-4713, 11, 24, 0, 0));
        add(PgType.TIMESTAMP, "'294276-12-31 23:59:59.999999'::timestamp", "timestamp_send",
                LocalDateTime.of(294276, 12, 31, 23, 59, 59, 999_999_000));
        add(PgType.TIMESTAMP, "'infinity'::timestamp", "timestamp_send", LocalDateTime.MAX);
        add(PgType.TIMESTAMP, "'-infinity'::timestamp", "timestamp_send", LocalDateTime.MIN);

        add(PgType.TIMESTAMPTZ, "'2000-01-01 00:00:00+00'::timestamptz", "timestamptz_send", Instant.parse("2000-01-01T00:00:00Z"));
        add(PgType.TIMESTAMPTZ, "'2024-06-30 23:59:59.123456+05:45'::timestamptz", "timestamptz_send",
                Instant.parse("2024-06-30T18:14:59.123456Z"));
        add(PgType.TIMESTAMPTZ, "'0044-03-15 12:00:00+00 BC'::timestamptz", "timestamptz_send",
                utc(LocalDateTime.of(-43, 3, 15, 12, 0)));
        add(PgType.TIMESTAMPTZ, "'4714-11-24 00:00:00+00 BC'::timestamptz", "timestamptz_send",
                utc(LocalDateTime.of(-4713, 11, 24, 0, 0)));
        add(PgType.TIMESTAMPTZ, "'294276-12-31 23:59:59.999999+00'::timestamptz", "timestamptz_send",
                utc(LocalDateTime.of(294276, 12, 31, 23, 59, 59, 999_999_000)));
        add(PgType.TIMESTAMPTZ, "'infinity'::timestamptz", "timestamptz_send", Instant.MAX);
        add(PgType.TIMESTAMPTZ, "'-infinity'::timestamptz", "timestamptz_send", Instant.MIN);

        add(PgType.INTERVAL, "'0'::interval", "interval_send", PgInterval.ZERO);
        add(PgType.INTERVAL, "'1 year 2 mons -3 days 04:05:06.789'::interval", "interval_send",
                new PgInterval(14, -3, 14_706_789_000L));
        add(PgType.INTERVAL, "'-1 year -2 mons +3 days -04:05:06.000001'::interval", "interval_send",
                new PgInterval(-14, 3, -14_706_000_001L));
        add(PgType.INTERVAL, "'1 mon 1 day'::interval", "interval_send", new PgInterval(1, 1, 0));
        add(PgType.INTERVAL, "'-00:00:00.000001'::interval", "interval_send", new PgInterval(0, 0, -1));
        add(PgType.INTERVAL, "'178000000 years'::interval", "interval_send", new PgInterval(2_136_000_000, 0, 0));
        add(PgType.INTERVAL, "'-2147483648 days'::interval", "interval_send", new PgInterval(0, Integer.MIN_VALUE, 0));
        add(PgType.INTERVAL, "'1000000000:00:00.5'::interval", "interval_send",
                new PgInterval(0, 0, 3_600_000_000_000_000_000L + 500_000L));
        add(17, PgType.INTERVAL, "'infinity'::interval", "interval_send", PgInterval.POSITIVE_INFINITY);
        add(17, PgType.INTERVAL, "'-infinity'::interval", "interval_send", PgInterval.NEGATIVE_INFINITY);
    }

    private void arrays() {
        add(PgType.INT4_ARRAY, "'{1,NULL,-3}'::int4[]", "array_send", list(1, null, -3));
        add(PgType.INT4_ARRAY, "'{}'::int4[]", "array_send", list());
        add(PgType.INT4_ARRAY, "'[0:1]={1,2}'::int4[]", "array_send", list(1, 2));
        add(PgType.INT4_ARRAY, "'{{1,2},{3,NULL}}'::int4[]", "array_send", list(list(1, 2), list(3, null)));
        add(PgType.INT2_ARRAY, "'{-32768,32767}'::int2[]", "array_send", list((short) -32768, (short) 32767));
        add(PgType.INT8_ARRAY, "'{-9223372036854775808,NULL}'::int8[]", "array_send", list(Long.MIN_VALUE, null));
        add(PgType.BOOL_ARRAY, "'{t,f,NULL}'::bool[]", "array_send", list(true, false, null));
        add(PgType.OID_ARRAY, "'{4294967295,0}'::oid[]", "array_send", list(4294967295L, 0L));
        add(PgType.FLOAT4_ARRAY, "'{NaN,-Infinity,-0,0.1}'::float4[]", "array_send",
                list(Float.NaN, Float.NEGATIVE_INFINITY, -0.0f, 0.1f));
        add(PgType.FLOAT8_ARRAY, "'{NaN,Infinity,1e308,NULL}'::float8[]", "array_send",
                list(Double.NaN, Double.POSITIVE_INFINITY, 1e308, null));
        add(PgType.NUMERIC_ARRAY, "'{NaN,-0.000,1e-5,NULL}'::numeric[]", "array_send",
                list(Double.NaN, new BigDecimal("0.000"), new BigDecimal("0.00001"), null));
        add(PgType.TEXT_ARRAY, "ARRAY['a,b', '{c}', 'q\"uote', 'back\\slash', NULL, 'NULL', '', ' sp ', 'ünï😀']::text[]",
                "array_send", list("a,b", "{c}", "q\"uote", "back\\slash", null, "NULL", "", " sp ", "ünï😀"));
        add(PgType.VARCHAR_ARRAY, "ARRAY['x}', 'null']::varchar[]", "array_send", list("x}", "null"));
        add(PgType.BPCHAR_ARRAY, "ARRAY['a', 'b,c']::char(3)[]", "array_send", list("a  ", "b,c"));
        add(PgType.NAME_ARRAY, "ARRAY['n\"1', 'n 2']::name[]", "array_send", list("n\"1", "n 2"));
        add(PgType.BYTEA_ARRAY, "ARRAY['\\x00ff'::bytea, '', NULL]", "array_send", list(new byte[] {0, -1}, new byte[0], null));
        cases.add(new Case(0, PgType.BYTEA_ARRAY, "ARRAY['\\x005c22ff'::bytea]", "array_send", "SET bytea_output = escape; ",
                list(new byte[] {0, '\\', '"', -1})));
        add(PgType.UUID_ARRAY, "ARRAY['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid, NULL]", "array_send",
                list(UUID.fromString("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), null));
        add(PgType.DATE_ARRAY, "'{infinity,2000-01-01,\"0044-03-15 BC\"}'::date[]", "array_send",
                list(LocalDate.MAX, LocalDate.of(2000, 1, 1), LocalDate.of(-43, 3, 15)));
        add(PgType.TIME_ARRAY, "'{24:00:00,00:00:00.000001}'::time[]", "array_send",
                list(LocalTime.MAX, LocalTime.of(0, 0, 0, 1000)));
        add(PgType.TIMETZ_ARRAY, "'{12:00+05:45}'::timetz[]", "array_send",
                list(OffsetTime.of(12, 0, 0, 0, ZoneOffset.ofHoursMinutes(5, 45))));
        add(PgType.TIMESTAMP_ARRAY, "'{\"2000-01-01 00:00:00.5\",-infinity}'::timestamp[]", "array_send",
                list(LocalDateTime.of(2000, 1, 1, 0, 0, 0, 500_000_000), LocalDateTime.MIN));
        add(PgType.TIMESTAMPTZ_ARRAY, "'{\"0044-03-15 12:00:00+00 BC\",infinity}'::timestamptz[]", "array_send",
                list(utc(LocalDateTime.of(-43, 3, 15, 12, 0)), Instant.MAX));
        add(PgType.INTERVAL_ARRAY, "'{\"1 year -2 days +00:00:01\",NULL}'::interval[]", "array_send",
                list(new PgInterval(12, -2, 1_000_000L), null));
        add(PgType.JSON_ARRAY, "ARRAY['{\"a\": \"x,y\"}'::json, 'null'::json]", "array_send", list("{\"a\": \"x,y\"}", "null"));
        add(PgType.JSONB_ARRAY, "ARRAY['{\"k\": [1, \"\\\\\"]}'::jsonb]", "array_send", list("{\"k\": [1, \"\\\\\"]}"));
    }
}
