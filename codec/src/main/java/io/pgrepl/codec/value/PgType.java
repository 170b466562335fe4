package io.pgrepl.codec.value;

/** OIDs of the built-in types {@link PgValues} understands (pg_type.dat; stable across 10 to 18). */
public final class PgType {
    /** OID of boolean. */
    public static final int BOOL = 16;
    /** OID of bytea, binary string. */
    public static final int BYTEA = 17;
    /** OID of "char", the single-byte internal type. */
    public static final int CHAR = 18;
    /** OID of name, 63-byte identifier. */
    public static final int NAME = 19;
    /** OID of bigint. */
    public static final int INT8 = 20;
    /** OID of smallint. */
    public static final int INT2 = 21;
    /** OID of integer. */
    public static final int INT4 = 23;
    /** OID of text. */
    public static final int TEXT = 25;
    /** OID of oid, unsigned 32-bit object identifier. */
    public static final int OID = 26;
    /** OID of xid, 32-bit transaction ID. */
    public static final int XID = 28;
    /** OID of json, stored as text. */
    public static final int JSON = 114;
    /** OID of real. */
    public static final int FLOAT4 = 700;
    /** OID of double precision. */
    public static final int FLOAT8 = 701;
    /** OID of unknown, the type of an untyped literal. */
    public static final int UNKNOWN = 705;
    /** OID of character(n), blank-padded. */
    public static final int BPCHAR = 1042;
    /** OID of character varying(n). */
    public static final int VARCHAR = 1043;
    /** OID of date. */
    public static final int DATE = 1082;
    /** OID of time without time zone. */
    public static final int TIME = 1083;
    /** OID of timestamp without time zone. */
    public static final int TIMESTAMP = 1114;
    /** OID of timestamp with time zone. */
    public static final int TIMESTAMPTZ = 1184;
    /** OID of interval. */
    public static final int INTERVAL = 1186;
    /** OID of time with time zone. */
    public static final int TIMETZ = 1266;
    /** OID of numeric, arbitrary precision. */
    public static final int NUMERIC = 1700;
    /** OID of uuid. */
    public static final int UUID = 2950;
    /** OID of pg_lsn, a WAL position. */
    public static final int PG_LSN = 3220;
    /** OID of jsonb, binary JSON. */
    public static final int JSONB = 3802;

    /** OID of bool[], one-dimensional or more. */
    public static final int BOOL_ARRAY = 1000;
    /** OID of bytea[], one-dimensional or more. */
    public static final int BYTEA_ARRAY = 1001;
    /** OID of "char"[], one-dimensional or more. */
    public static final int CHAR_ARRAY = 1002;
    /** OID of name[], one-dimensional or more. */
    public static final int NAME_ARRAY = 1003;
    /** OID of int2[], one-dimensional or more. */
    public static final int INT2_ARRAY = 1005;
    /** OID of int4[], one-dimensional or more. */
    public static final int INT4_ARRAY = 1007;
    /** OID of text[], one-dimensional or more. */
    public static final int TEXT_ARRAY = 1009;
    /** OID of bpchar[], one-dimensional or more. */
    public static final int BPCHAR_ARRAY = 1014;
    /** OID of varchar[], one-dimensional or more. */
    public static final int VARCHAR_ARRAY = 1015;
    /** OID of int8[], one-dimensional or more. */
    public static final int INT8_ARRAY = 1016;
    /** OID of float4[], one-dimensional or more. */
    public static final int FLOAT4_ARRAY = 1021;
    /** OID of float8[], one-dimensional or more. */
    public static final int FLOAT8_ARRAY = 1022;
    /** OID of oid[], one-dimensional or more. */
    public static final int OID_ARRAY = 1028;
    /** OID of timestamp[], one-dimensional or more. */
    public static final int TIMESTAMP_ARRAY = 1115;
    /** OID of date[], one-dimensional or more. */
    public static final int DATE_ARRAY = 1182;
    /** OID of time[], one-dimensional or more. */
    public static final int TIME_ARRAY = 1183;
    /** OID of timestamptz[], one-dimensional or more. */
    public static final int TIMESTAMPTZ_ARRAY = 1185;
    /** OID of interval[], one-dimensional or more. */
    public static final int INTERVAL_ARRAY = 1187;
    /** OID of numeric[], one-dimensional or more. */
    public static final int NUMERIC_ARRAY = 1231;
    /** OID of timetz[], one-dimensional or more. */
    public static final int TIMETZ_ARRAY = 1270;
    /** OID of json[], one-dimensional or more. */
    public static final int JSON_ARRAY = 199;
    /** OID of uuid[], one-dimensional or more. */
    public static final int UUID_ARRAY = 2951;
    /** OID of jsonb[], one-dimensional or more. */
    public static final int JSONB_ARRAY = 3807;

    private PgType() {}

    /**
     * Element type of a known array type, or 0 if {@code arrayOid} is not one.
     *
     * @param arrayOid an array type's {@code pg_type} OID
     * @return the element type's OID, or 0
     */
    public static int elementOf(int arrayOid) {
        return switch (arrayOid) {
            case BOOL_ARRAY -> BOOL;
            case BYTEA_ARRAY -> BYTEA;
            case CHAR_ARRAY -> CHAR;
            case NAME_ARRAY -> NAME;
            case INT2_ARRAY -> INT2;
            case INT4_ARRAY -> INT4;
            case TEXT_ARRAY -> TEXT;
            case BPCHAR_ARRAY -> BPCHAR;
            case VARCHAR_ARRAY -> VARCHAR;
            case INT8_ARRAY -> INT8;
            case FLOAT4_ARRAY -> FLOAT4;
            case FLOAT8_ARRAY -> FLOAT8;
            case OID_ARRAY -> OID;
            case TIMESTAMP_ARRAY -> TIMESTAMP;
            case DATE_ARRAY -> DATE;
            case TIME_ARRAY -> TIME;
            case TIMESTAMPTZ_ARRAY -> TIMESTAMPTZ;
            case INTERVAL_ARRAY -> INTERVAL;
            case NUMERIC_ARRAY -> NUMERIC;
            case TIMETZ_ARRAY -> TIMETZ;
            case JSON_ARRAY -> JSON;
            case UUID_ARRAY -> UUID;
            case JSONB_ARRAY -> JSONB;
            default -> 0;
        };
    }

    /**
     * Short name for error messages, as {@code pg_type.typname} spells it.
     *
     * @param oid a type's {@code pg_type} OID
     * @return e.g. {@code "int4"} or {@code "int4[]"}; {@code "type N"} for an unknown OID
     */
    public static String name(int oid) {
        return switch (oid) {
            case BOOL -> "bool";
            case BYTEA -> "bytea";
            case CHAR -> "char";
            case NAME -> "name";
            case INT8 -> "int8";
            case INT2 -> "int2";
            case INT4 -> "int4";
            case TEXT -> "text";
            case OID -> "oid";
            case XID -> "xid";
            case JSON -> "json";
            case FLOAT4 -> "float4";
            case FLOAT8 -> "float8";
            case BPCHAR -> "bpchar";
            case VARCHAR -> "varchar";
            case DATE -> "date";
            case TIME -> "time";
            case TIMESTAMP -> "timestamp";
            case TIMESTAMPTZ -> "timestamptz";
            case INTERVAL -> "interval";
            case TIMETZ -> "timetz";
            case NUMERIC -> "numeric";
            case UUID -> "uuid";
            case PG_LSN -> "pg_lsn";
            case JSONB -> "jsonb";
            default -> elementOf(oid) != 0 ? name(elementOf(oid)) + "[]" : "type " + Integer.toUnsignedString(oid);
        };
    }
}
