package io.pgrepl.codec.value;

/** OIDs of the built-in types {@link PgValues} understands (pg_type.dat; stable across 10 to 18). */
public final class PgType {
    public static final int BOOL = 16;
    public static final int BYTEA = 17;
    public static final int CHAR = 18;
    public static final int NAME = 19;
    public static final int INT8 = 20;
    public static final int INT2 = 21;
    public static final int INT4 = 23;
    public static final int TEXT = 25;
    public static final int OID = 26;
    public static final int XID = 28;
    public static final int JSON = 114;
    public static final int FLOAT4 = 700;
    public static final int FLOAT8 = 701;
    public static final int UNKNOWN = 705;
    public static final int BPCHAR = 1042;
    public static final int VARCHAR = 1043;
    public static final int DATE = 1082;
    public static final int TIME = 1083;
    public static final int TIMESTAMP = 1114;
    public static final int TIMESTAMPTZ = 1184;
    public static final int INTERVAL = 1186;
    public static final int TIMETZ = 1266;
    public static final int NUMERIC = 1700;
    public static final int UUID = 2950;
    public static final int PG_LSN = 3220;
    public static final int JSONB = 3802;

    public static final int BOOL_ARRAY = 1000;
    public static final int BYTEA_ARRAY = 1001;
    public static final int CHAR_ARRAY = 1002;
    public static final int NAME_ARRAY = 1003;
    public static final int INT2_ARRAY = 1005;
    public static final int INT4_ARRAY = 1007;
    public static final int TEXT_ARRAY = 1009;
    public static final int BPCHAR_ARRAY = 1014;
    public static final int VARCHAR_ARRAY = 1015;
    public static final int INT8_ARRAY = 1016;
    public static final int FLOAT4_ARRAY = 1021;
    public static final int FLOAT8_ARRAY = 1022;
    public static final int OID_ARRAY = 1028;
    public static final int TIMESTAMP_ARRAY = 1115;
    public static final int DATE_ARRAY = 1182;
    public static final int TIME_ARRAY = 1183;
    public static final int TIMESTAMPTZ_ARRAY = 1185;
    public static final int INTERVAL_ARRAY = 1187;
    public static final int NUMERIC_ARRAY = 1231;
    public static final int TIMETZ_ARRAY = 1270;
    public static final int JSON_ARRAY = 199;
    public static final int UUID_ARRAY = 2951;
    public static final int JSONB_ARRAY = 3807;

    private PgType() {}

    /** Element type of a known array type, or 0 if {@code arrayOid} is not one. */
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

    /** Short name for error messages. */
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
