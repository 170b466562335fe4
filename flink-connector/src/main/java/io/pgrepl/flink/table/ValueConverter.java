package io.pgrepl.flink.table;

import io.pgrepl.codec.pgoutput.record.Tuple;
import io.pgrepl.flink.PgreplFlinkException;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.UUID;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.data.DecimalData;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.data.TimestampData;
import org.apache.flink.table.types.logical.ArrayType;
import org.apache.flink.table.types.logical.DecimalType;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * One PostgreSQL value to Flink's internal data for the column's declared type: the value is
 * decoded by pgrepl's codec ({@link Tuple#decode}), then fitted to the declared type (a numeric to
 * the DECIMAL's precision and scale, a timestamp to TIMESTAMP, a timestamptz to TIMESTAMP_LTZ, an
 * array element by element). A string-typed column takes the server's text as it is; a value of a
 * type the codec does not know (an enum, a domain) arrives as text and is parsed for the declared
 * type. A value that does not fit fails with the column named.
 */
final class ValueConverter {
    private ValueConverter() {}

    /** Checks at planning that a declared type can be filled. */
    static void check(String column, LogicalType t) {
        switch (t.getTypeRoot()) {
            case CHAR, VARCHAR, BOOLEAN, TINYINT, SMALLINT, INTEGER, BIGINT, FLOAT, DOUBLE, DECIMAL, DATE, TIME_WITHOUT_TIME_ZONE,
                    TIMESTAMP_WITHOUT_TIME_ZONE, TIMESTAMP_WITH_LOCAL_TIME_ZONE, BINARY, VARBINARY -> { }
            case ARRAY -> check(column, ((ArrayType) t).getElementType());
            default -> throw new ValidationException("column " + column + ": type " + t + " is not supported by the pgrepl connector"
                    + " (use STRING to get the server's text)");
        }
    }

    /** The column's value, or null for SQL NULL. */
    static Object convert(Tuple tuple, int i, LogicalType t, String column) {
        if (!tuple.hasValue(i)) return null;
        try {
            return switch (t.getTypeRoot()) {
                // the server's UTF-8 as it is: StringData keeps bytes, and a String would be encoded again when the row is copied
                case CHAR, VARCHAR -> StringData.fromBytes(tuple.bytes(i));
                default -> fit(tuple.decode(i), t);
            };
        } catch (RuntimeException e) {
            throw new PgreplFlinkException("column " + column + ": the value does not fit " + t + ": " + e.getMessage(), e);
        }
    }

    private static Object fit(Object v, LogicalType t) {
        if (v == null) return null;
        return switch (t.getTypeRoot()) {
            case CHAR, VARCHAR -> StringData.fromString(v instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : v.toString());
            case BOOLEAN -> v instanceof Boolean b ? b : parseBool(v.toString());
            case TINYINT -> v instanceof Number n ? (byte) Math.toIntExact(n.longValue()) : Byte.parseByte(v.toString());
            case SMALLINT -> v instanceof Number n ? Short.valueOf((short) exact(n, Short.MIN_VALUE, Short.MAX_VALUE)) : Short.parseShort(v.toString());
            case INTEGER -> v instanceof Number n ? Integer.valueOf((int) exact(n, Integer.MIN_VALUE, Integer.MAX_VALUE)) : Integer.parseInt(v.toString());
            case BIGINT -> v instanceof Number n ? Long.valueOf(exact(n, Long.MIN_VALUE, Long.MAX_VALUE)) : Long.parseLong(v.toString());
            case FLOAT -> v instanceof Number n ? n.floatValue() : Float.parseFloat(v.toString());
            case DOUBLE -> v instanceof Number n ? n.doubleValue() : Double.parseDouble(v.toString());
            case DECIMAL -> decimal(v, (DecimalType) t);
            case DATE -> (int) (v instanceof LocalDate d ? d : LocalDate.parse(v.toString())).toEpochDay();
            case TIME_WITHOUT_TIME_ZONE -> (int) ((v instanceof LocalTime lt ? lt : v instanceof OffsetTime ot ? ot.toLocalTime()
                    : LocalTime.parse(v.toString())).toNanoOfDay() / 1_000_000L);
            case TIMESTAMP_WITHOUT_TIME_ZONE -> TimestampData.fromLocalDateTime(v instanceof LocalDateTime ldt ? ldt
                    : v instanceof Instant in ? LocalDateTime.ofInstant(in, ZoneOffset.UTC) : LocalDateTime.parse(v.toString().replace(' ', 'T')));
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE -> TimestampData.fromInstant(v instanceof Instant in ? in
                    : v instanceof LocalDateTime ldt ? ldt.toInstant(ZoneOffset.UTC) : OffsetDateTime.parse(v.toString()).toInstant());
            case BINARY, VARBINARY -> v instanceof byte[] b ? b : v instanceof UUID u ? uuidBytes(u) : v.toString().getBytes(StandardCharsets.UTF_8);
            case ARRAY -> array(v, ((ArrayType) t).getElementType());
            default -> throw new IllegalStateException("unsupported type " + t);
        };
    }

    private static long exact(Number n, long min, long max) {
        long l;
        if (n instanceof BigDecimal bd) l = bd.longValueExact();
        else if (n instanceof Double || n instanceof Float) throw new IllegalArgumentException("a floating point value for an integer column");
        else l = n.longValue();
        if (l < min || l > max) throw new ArithmeticException(l + " is out of range");
        return l;
    }

    private static Boolean parseBool(String s) {
        return switch (s) {
            case "t", "true" -> Boolean.TRUE;
            case "f", "false" -> Boolean.FALSE;
            default -> throw new IllegalArgumentException("not a boolean: " + s);
        };
    }

    private static DecimalData decimal(Object v, DecimalType t) {
        BigDecimal bd = v instanceof BigDecimal b ? b : new BigDecimal(v.toString());
        DecimalData d = DecimalData.fromBigDecimal(bd, t.getPrecision(), t.getScale());
        if (d == null) throw new ArithmeticException(bd.toPlainString() + " has more digits than " + t);
        return d;
    }

    private static GenericArrayData array(Object v, LogicalType element) {
        if (!(v instanceof List<?> l)) throw new IllegalArgumentException("not an array value");
        Object[] out = new Object[l.size()];
        for (int i = 0; i < out.length; i++) out[i] = fit(l.get(i), element);
        return new GenericArrayData(out);
    }

    private static byte[] uuidBytes(UUID u) {
        return java.nio.ByteBuffer.allocate(16).putLong(u.getMostSignificantBits()).putLong(u.getLeastSignificantBits()).array();
    }
}
