package io.pgrepl.kafka.connect.schema;

import io.pgrepl.codec.value.PgType;
import java.sql.Types;
import java.util.Map;

/**
 * What Debezium's schema change records say of a column's type: its {@code java.sql.Types} code (as
 * the PostgreSQL JDBC driver reports it), its name, and the length and scale its type modifier
 * encodes ({@code atttypmod}: {@code varchar(n)} and {@code char(n)} keep n + 4, {@code numeric(p,s)}
 * keeps ((p &lt;&lt; 16) | s) + 4, {@code bit(n)} n, the time types their fractional digits).
 */
final class ColumnTypes {
    private ColumnTypes() {}

    /** Built-in types outside {@link PgType}'s names (OIDs fixed across releases, pg_type.dat). */
    private static final Map<Integer, String> MORE = Map.of(1560, "bit", 1562, "varbit", 869, "inet", 650, "cidr",
            829, "macaddr", 790, "money", 142, "xml", 3614, "tsvector");

    static String name(int oid) {
        String n = MORE.get(oid);
        if (n != null) return n;
        n = PgType.name(oid);
        return n.startsWith("type ") ? null : n;
    }

    static int jdbcType(int oid) {
        if (PgType.elementOf(oid) != 0) return Types.ARRAY;
        return switch (oid) {
            case PgType.INT2 -> Types.SMALLINT;
            case PgType.INT4, PgType.OID -> Types.INTEGER;
            case PgType.INT8 -> Types.BIGINT;
            case PgType.NUMERIC -> Types.NUMERIC;
            case PgType.FLOAT4 -> Types.REAL;
            case PgType.FLOAT8 -> Types.DOUBLE;
            case PgType.BOOL, 1560 -> Types.BIT;
            case PgType.TEXT, PgType.VARCHAR, PgType.NAME -> Types.VARCHAR;
            case PgType.BPCHAR, PgType.CHAR -> Types.CHAR;
            case PgType.DATE -> Types.DATE;
            case PgType.TIME, PgType.TIMETZ -> Types.TIME;
            case PgType.TIMESTAMP, PgType.TIMESTAMPTZ -> Types.TIMESTAMP;
            case PgType.BYTEA -> Types.BINARY;
            default -> Types.OTHER;
        };
    }

    /** The length a type modifier encodes, or null (none, or the type has no length). */
    static Integer length(int oid, int typmod) {
        if (typmod < 0) return null;
        return switch (oid) {
            case PgType.VARCHAR, PgType.BPCHAR -> typmod - 4;
            case PgType.NUMERIC -> ((typmod - 4) >> 16) & 0xFFFF;
            case 1560, 1562, PgType.TIME, PgType.TIMETZ, PgType.TIMESTAMP, PgType.TIMESTAMPTZ -> typmod;
            default -> null;
        };
    }

    /** The scale a numeric's type modifier encodes, or null. */
    static Integer scale(int oid, int typmod) {
        if (oid != PgType.NUMERIC || typmod < 0) return null;
        return (typmod - 4) & 0xFFFF;
    }
}
