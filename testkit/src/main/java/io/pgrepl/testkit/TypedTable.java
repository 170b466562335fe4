package io.pgrepl.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A table of every type the codec decodes, for the parity tests: each built-in scalar with and
 * without type modifiers, arrays of them (one multi-dimensional), domains (one over a typmod'd type),
 * an enum and its array, a composite, ranges, multiranges and numeric infinities (PostgreSQL 14+),
 * extension types (hstore, ltree, citext), infinities of dates and timestamps,
 * NULLs (row 2 is NULL everywhere), a TOASTed value, and names that need quoting (a schema with a
 * dot, a mixed-case table, columns with spaces, dots and non-ASCII letters). Rows 1 to 3 are
 * loaded by {@link #setup}; {@link #copy} inserts the same values again under ids + offset. The
 * parity tests of the connector, the CLI and the library read it by every path.
 */
public final class TypedTable {
    public static final String SCHEMA = "Sales.Q1";
    public static final String TABLE = "OrderItems";
    public static final String QUALIFIED = "\"Sales.Q1\".\"OrderItems\"";
    /** table.include.list's regular expression for it. */
    public static final String INCLUDE = "Sales\\.Q1\\.OrderItems";
    /** The topic name after the prefix. */
    public static final String TOPIC_SUFFIX = ".Sales.Q1.OrderItems";

    /** One column: its name (unquoted), type, and the values of rows 1 and 3 as SQL expressions. */
    public record Col(String name, String type, String row1, String row3) {
        public String quoted() {
            return "\"" + name.replace("\"", "\"\"") + "\"";
        }
    }

    private TypedTable() {}

    public static List<Col> columns(int major) {
        List<Col> c = new ArrayList<>(List.of(
                new Col("i2", "int2", "32767", "-32768"),
                new Col("i4", "int4", "2147483647", "0"),
                new Col("i8", "int8", "-9223372036854775808", "0"),
                new Col("o", "oid", "4294967295", "0"),
                new Col("f4", "real", "1.5", "'NaN'"),
                new Col("f8", "float8", "-2.25e-300", "'Infinity'"),
                new Col("f8z", "float8", "'-0'", "'-Infinity'"),
                new Col("n", "numeric", "1.5e-30", "'NaN'"),
                new Col("n7", "numeric(7)", "1234567", "-1"),
                new Col("n102", "numeric(10,2)", "12345678.91", "-0.01"),
                new Col("n50", "numeric(5,0)", "12345", "0"),
                new Col("n124", "numeric(12,4)", "12345678.9123", "0.0001"),
                new Col("m", "money", "1234.56", "-0.01"),
                new Col("bo", "boolean", "true", "false"),
                new Col("t", "text", "'it''s \"q\" back\\slash ünï 漢字 😀'", "''"),
                new Col("vc", "varchar", "'abc'", "''"),
                new Col("vc10", "varchar(10)", "'héllo wörl'", "''"),
                new Col("ch", "char(4)", "'ab'", "'    '"),
                new Col("c1", "\"char\"", "'x'", "'z'"),
                new Col("nm", "name", "'a_name'", "''"),
                new Col("by", "bytea", "'\\x00ff10'", "'\\x'"),
                new Col("u", "uuid", "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'", "'00000000-0000-0000-0000-000000000000'"),
                new Col("j", "json", "'{\"a\": [1, 2.50]}'", "'null'"),
                new Col("jb", "jsonb", "'{\"b\": {\"c\": null}}'", "'[]'"),
                new Col("x", "xml", "'<a>b</a>'", "'<r/>'"),
                new Col("d", "date", "'2024-02-29'", "'infinity'"),
                new Col("dbc", "date", "'0044-03-15 BC'", "'-infinity'"),
                new Col("tm", "time", "'23:59:59.999999'", "'24:00:00'"),
                new Col("tm2", "time(2)", "'23:59:59.99'", "'00:00:00'"),
                new Col("tm0", "time(0)", "'12:34:56'", "'00:00:00'"),
                new Col("tmtz", "timetz", "'12:00:00.123456+05:30'", "'00:00:00+00'"),
                new Col("tmtz1", "timetz(1)", "'12:00:00.1+02'", "'23:59:59.9-14'"),
                new Col("ts", "timestamp", "'2024-02-29 23:59:59.123456'", "'infinity'"),
                new Col("ts0", "timestamp(0)", "'2024-02-29 23:59:59'", "'-infinity'"),
                new Col("ts3", "timestamp(3)", "'2024-02-29 23:59:59.123'", "'1970-01-01 00:00:00'"),
                new Col("tstz", "timestamptz", "'2024-06-30 23:59:59.123456+05:45'", "'infinity'"),
                new Col("tstz3", "timestamptz(3)", "'2024-02-29 23:59:59.123+05:30'", "'-infinity'"),
                new Col("tstz0", "timestamptz(0)", "'2024-01-02 03:04:05+00'", "'1969-12-31 23:59:59+00'"),
                new Col("iv", "interval", "'1 year 2 mons 3 days 04:05:06.789'", "'-1 days'"),
                new Col("ivs", "interval second(2)", "'12.34 seconds'", "'0'"),
                new Col("ivym", "interval year to month", "'1 year 2 mons'", "'-3 mons'"),
                new Col("b1", "bit(1)", "B'1'", "B'0'"),
                new Col("b8", "bit(8)", "B'10100101'", "B'00000000'"),
                new Col("vb16", "varbit(16)", "B'1010'", "B''"),
                new Col("vb", "varbit", "B'110'", "B''"),
                new Col("ip", "inet", "'192.168.0.1/24'", "'::1'"),
                new Col("cidr", "cidr", "'10.0.0.0/8'", "'::/0'"),
                new Col("mac", "macaddr", "'08:00:2b:01:02:03'", "'00:00:00:00:00:00'"),
                new Col("mac8", "macaddr8", "'08:00:2b:01:02:03:04:05'", "'00:00:00:00:00:00:00:00'"),
                new Col("r4", "int4range", "'[1,10)'", "'empty'"),
                new Col("r8", "int8range", "'[1,)'", "'(,)'"),
                new Col("rn", "numrange", "'(1.5,2.5]'", "'empty'"),
                new Col("rts", "tsrange", "'[\"2024-01-01 00:00\",\"2024-02-01 00:00\")'", "'empty'"),
                new Col("rtz", "tstzrange", "'[\"2024-01-01 00:00+00\",)'", "'empty'"),
                new Col("rd", "daterange", "'[2024-01-01,2024-02-01)'", "'empty'"),
                new Col("pt", "point", "'(1.5,-2)'", "'(0,0)'"),
                new Col("tsv", "tsvector", "'a fat cat'", "''"),
                new Col("hs", "public.hstore", "'\"a\"=>\"1\", \"b\"=>NULL'", "''"),
                new Col("lt", "public.ltree", "'Top.Science.Astronomy'", "''"),
                new Col("alt", "public.ltree[]", "'{a.b,c}'", "'{}'"),
                new Col("ci", "public.citext", "'MiXeD'", "''"),
                new Col("mood", "\"Sales.Q1\".\"Mood\"", "'happy'", "'sad'"),
                new Col("moods", "\"Sales.Q1\".\"Mood\"[]", "'{sad,happy}'", "'{}'"),
                new Col("dnum", "\"Sales.Q1\".money83", "3.141", "-0.001"),
                new Col("dtxt", "\"Sales.Q1\".short5", "'abc'", "''"),
                new Col("pair", "\"Sales.Q1\".pair", "ROW(7, 'seven')", "ROW(NULL, NULL)"),
                new Col("a2", "int2[]", "'{1,NULL,-3}'", "'{}'"),
                new Col("a4", "int4[]", "'{{1,2},{3,4}}'", "'{}'"),
                new Col("a8", "int8[]", "'{9223372036854775807}'", "'{}'"),
                new Col("at", "text[]", "ARRAY['a,b', '{c}', 'q\"uote', NULL, 'NULL', '']", "'{}'"),
                new Col("avc", "varchar(5)[]", "'{ab,cd}'", "'{}'"),
                new Col("an", "numeric[]", "'{1.5,NULL,-3.25}'", "'{}'"),
                new Col("an102", "numeric(10,2)[]", "'{1.50,NULL,-3.25}'", "'{}'"),
                new Col("af4", "real[]", "'{1.5,NaN}'", "'{}'"),
                new Col("af8", "float8[]", "'{-0,Infinity}'", "'{}'"),
                new Col("abo", "boolean[]", "'{t,f,NULL}'", "'{}'"),
                new Col("ad", "date[]", "'{2024-01-01,infinity}'", "'{}'"),
                new Col("au", "uuid[]", "'{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}'", "'{}'"),
                new Col("ajb", "jsonb[]", "ARRAY['{\"a\": 1}'::jsonb, 'null']", "'{}'"),
                new Col("aj", "json[]", "ARRAY['[1, 2]'::json]", "'{}'"),
                new Col("atm3", "time(3)[]", "'{12:00:00.123}'", "'{}'"),
                new Col("atmtz", "timetz[]", "'{12:00:00+02}'", "'{}'"),
                new Col("ats3", "timestamp(3)[]", "'{\"2024-01-01 00:00:00.123\",NULL}'", "'{}'"),
                new Col("atz", "timestamptz[]", "'{\"2024-01-01 00:00:00.5+00\"}'", "'{}'"),
                new Col("aby", "bytea[]", "'{\"\\\\x00ff\",NULL}'", "'{}'"),
                new Col("aip", "inet[]", "'{10.0.0.1}'", "'{}'"),
                new Col("ar4", "int4range[]", "'{\"[1,2)\"}'", "'{}'"),
                new Col("ach", "char(3)[]", "'{ab,c}'", "'{}'"),
                new Col("am", "money[]", "'{1.5}'", "'{}'"),
                new Col("aiv", "interval[]", "'{\"1 day\"}'", "'{}'"),
                new Col("avb", "varbit[]", "'{101}'", "'{}'"),
                new Col("anm", "name[]", "'{a}'", "'{}'"),
                new Col("Mixed Case", "text", "'Quoted \"name\" value'", "''"),
                new Col("unit.price", "numeric(6,2)", "9.99", "0"),
                new Col("prix ü", "text", "'€'", "''"),
                new Col("big", "text", "(SELECT string_agg(md5(g::text), '') FROM generate_series(1, 400) g)", "''")));
        if (major >= 11) c.add(new Col("adnum", "\"Sales.Q1\".money83[]", "'{1.5}'", "'{}'")); // arrays of domains
        if (major >= 14) {
            c.add(new Col("mr4", "int4multirange", "'{[1,3),[5,7)}'", "'{}'"));
            c.add(new Col("mrd", "datemultirange", "'{[2024-01-01,2024-02-01)}'", "'{}'"));
            c.add(new Col("ninf", "numeric", "'Infinity'", "'-Infinity'"));
        }
        return c;
    }

    /** Drops and creates the schema, its types and the table, and loads rows 1 to 3. */
    public static String setup(int major) {
        List<Col> cols = columns(major);
        String defs = cols.stream().map(c -> c.quoted() + " " + c.type()).collect(Collectors.joining(", "));
        String r1 = cols.stream().map(Col::row1).collect(Collectors.joining(", "));
        String r2 = cols.stream().map(c -> "NULL").collect(Collectors.joining(", "));
        String r3 = cols.stream().map(Col::row3).collect(Collectors.joining(", "));
        return "CREATE EXTENSION IF NOT EXISTS hstore WITH SCHEMA public; CREATE EXTENSION IF NOT EXISTS ltree WITH SCHEMA public;"
                + " CREATE EXTENSION IF NOT EXISTS citext WITH SCHEMA public;"
                + " DROP SCHEMA IF EXISTS \"Sales.Q1\" CASCADE; CREATE SCHEMA \"Sales.Q1\";"
                + " CREATE TYPE \"Sales.Q1\".\"Mood\" AS ENUM ('sad', 'ok', 'happy');"
                + " CREATE DOMAIN \"Sales.Q1\".money83 AS numeric(8,3);"
                + " CREATE DOMAIN \"Sales.Q1\".short5 AS varchar(5);"
                + " CREATE TYPE \"Sales.Q1\".pair AS (n int, t text);"
                + " CREATE TABLE " + QUALIFIED + " (\"Id\" int PRIMARY KEY, " + defs + ");"
                + " INSERT INTO " + QUALIFIED + " VALUES (1, " + r1 + "), (2, " + r2 + "), (3, " + r3 + ");";
    }

    /** Inserts rows 1 to 3 again as rows 1 + offset to 3 + offset (the same values, streamed). */
    public static String copy(int major, int offset) {
        String names = columns(major).stream().map(Col::quoted).collect(Collectors.joining(", "));
        return "INSERT INTO " + QUALIFIED + " SELECT \"Id\" + " + offset + ", " + names + " FROM " + QUALIFIED
                + " WHERE \"Id\" <= 3";
    }
}
