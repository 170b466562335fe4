package io.pgrepl.client.schema;

import io.pgrepl.codec.value.PgType;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * {@code format_type(oid, typmod)} as DDL capture's messages print it (its functions pin
 * {@code search_path} to {@code pg_catalog}, so every type outside it is schema-qualified), for a
 * table described from its Relation message alone: built-in types by their fixed OIDs
 * (pg_type.dat), with their modifiers as the types' {@code typmodout} functions print them;
 * user-defined types by the names pgoutput's Type messages give. Null for a type neither names.
 */
final class FormatType {
    private FormatType() {}

    /** Built-in types whose SQL name is their {@code typname} (no modifier); OIDs fixed across releases. */
    private static final Map<Integer, String> PLAIN = Map.ofEntries(
            Map.entry(PgType.BYTEA, "bytea"), Map.entry(PgType.NAME, "name"), Map.entry(PgType.TEXT, "text"),
            Map.entry(PgType.OID, "oid"), Map.entry(PgType.XID, "xid"), Map.entry(PgType.JSON, "json"),
            Map.entry(PgType.DATE, "date"), Map.entry(PgType.UUID, "uuid"), Map.entry(PgType.PG_LSN, "pg_lsn"),
            Map.entry(PgType.JSONB, "jsonb"), Map.entry(142, "xml"), Map.entry(600, "point"), Map.entry(601, "lseg"),
            Map.entry(602, "path"), Map.entry(603, "box"), Map.entry(604, "polygon"), Map.entry(628, "line"),
            Map.entry(650, "cidr"), Map.entry(718, "circle"), Map.entry(774, "macaddr8"), Map.entry(790, "money"),
            Map.entry(829, "macaddr"), Map.entry(869, "inet"), Map.entry(3614, "tsvector"), Map.entry(3615, "tsquery"),
            Map.entry(3904, "int4range"), Map.entry(3906, "numrange"), Map.entry(3908, "tsrange"),
            Map.entry(3910, "tstzrange"), Map.entry(3912, "daterange"), Map.entry(3926, "int8range"),
            Map.entry(5069, "xid8"), Map.entry(2205, "regclass"), Map.entry(2206, "regtype"));
    /** Built-in array types outside {@link PgType#elementOf}: array OID to element OID. */
    private static final Map<Integer, Integer> MORE_ARRAYS = Map.ofEntries(
            Map.entry(143, 142), Map.entry(651, 650), Map.entry(791, 790), Map.entry(1040, 829), Map.entry(1041, 869),
            Map.entry(1561, 1560), Map.entry(1563, 1562), Map.entry(775, 774), Map.entry(3643, 3614),
            Map.entry(3645, 3615), Map.entry(2949, 2950), Map.entry(3221, 3220), Map.entry(1017, 600));
    private static final int BIT = 1560;
    private static final int VARBIT = 1562;
    /** The first OID of objects made after initdb (FirstNormalObjectId): user-defined types. */
    private static final long FIRST_NORMAL_OID = 16384;
    private static final Pattern PLAIN_IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_$]*");

    /**
     * @param oid      the type's OID
     * @param typmod   its modifier, -1 for none
     * @param userType a user-defined type's {@code {namespace, name}} as its Type message gave them, or null
     * @return the type as {@code format_type} prints it, or null when unknown
     */
    static String of(int oid, int typmod, java.util.function.IntFunction<String[]> userType) {
        if (Integer.toUnsignedLong(oid) >= FIRST_NORMAL_OID) {
            String[] t = userType.apply(oid);
            if (t == null) return null;
            // pgoutput names an array type by its pg_type name: PostgreSQL names it after its element, with a leading underscore.
            boolean array = t[1].startsWith("_") && t[1].length() > 1;
            String name = array ? t[1].substring(1) : t[1];
            String q = t[0].isEmpty() || t[0].equals("pg_catalog") ? quote(name) : quote(t[0]) + "." + quote(name);
            return array ? q + "[]" : q;
        }
        int element = PgType.elementOf(oid);
        if (element == 0) element = MORE_ARRAYS.getOrDefault(oid, 0);
        if (element != 0) {
            String e = of(element, typmod, userType);
            return e == null ? null : e + "[]";
        }
        boolean mod = typmod >= 0;
        return switch (oid) {
            case PgType.BOOL -> "boolean";
            case PgType.CHAR -> "\"char\"";
            case PgType.INT2 -> "smallint";
            case PgType.INT4 -> "integer";
            case PgType.INT8 -> "bigint";
            case PgType.FLOAT4 -> "real";
            case PgType.FLOAT8 -> "double precision";
            case PgType.BPCHAR -> mod ? "character(" + (typmod - 4) + ")" : "bpchar";
            case PgType.VARCHAR -> "character varying" + (mod ? "(" + (typmod - 4) + ")" : "");
            case BIT -> mod ? "bit(" + typmod + ")" : "\"bit\"";
            case VARBIT -> "bit varying" + (mod ? "(" + typmod + ")" : "");
            case PgType.NUMERIC -> mod ? "numeric(" + (((typmod - 4) >> 16) & 0xFFFF) + "," + ((((typmod - 4) & 0x7FF) ^ 1024) - 1024) + ")"
                    : "numeric";
            case PgType.TIME -> "time" + precision(typmod) + " without time zone";
            case PgType.TIMETZ -> "time" + precision(typmod) + " with time zone";
            case PgType.TIMESTAMP -> "timestamp" + precision(typmod) + " without time zone";
            case PgType.TIMESTAMPTZ -> "timestamp" + precision(typmod) + " with time zone";
            case PgType.INTERVAL -> {
                String fields = interval(typmod);
                yield fields == null ? null : "interval" + fields;
            }
            default -> PLAIN.get(oid);
        };
    }

    private static String precision(int typmod) {
        return typmod >= 0 ? "(" + typmod + ")" : "";
    }

    /** intervaltypmodout: the fields, then the seconds' precision unless full. */
    private static String interval(int typmod) {
        if (typmod < 0) return "";
        int range = (typmod >> 16) & 0x7FFF;
        int precision = typmod & 0xFFFF;
        int year = 1 << 2;
        int month = 1 << 1;
        int day = 1 << 3;
        int hour = 1 << 10;
        int minute = 1 << 11;
        int second = 1 << 12;
        String fields;
        if (range == 0x7FFF) fields = "";
        else if (range == year) fields = " year";
        else if (range == month) fields = " month";
        else if (range == day) fields = " day";
        else if (range == hour) fields = " hour";
        else if (range == minute) fields = " minute";
        else if (range == second) fields = " second";
        else if (range == (year | month)) fields = " year to month";
        else if (range == (day | hour)) fields = " day to hour";
        else if (range == (day | hour | minute)) fields = " day to minute";
        else if (range == (day | hour | minute | second)) fields = " day to second";
        else if (range == (hour | minute)) fields = " hour to minute";
        else if (range == (hour | minute | second)) fields = " hour to second";
        else if (range == (minute | second)) fields = " minute to second";
        else return null;
        return precision == 0xFFFF ? fields : fields + "(" + precision + ")";
    }

    /** quote_ident, but for keywords (a type or schema named like one is rare). */
    static String quote(String identifier) {
        if (PLAIN_IDENTIFIER.matcher(identifier).matches()) return identifier;
        return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }
}
