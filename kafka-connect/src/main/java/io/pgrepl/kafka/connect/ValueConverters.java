package io.pgrepl.kafka.connect;

import io.pgrepl.codec.pgoutput.ColumnInfo;
import io.pgrepl.codec.value.PgInterval;
import io.pgrepl.codec.value.PgType;
import io.pgrepl.codec.value.PgValues;
import io.netty.buffer.Unpooled;
import io.pgrepl.kafka.connect.PgreplConnectorConfig.BinaryMode;
import io.pgrepl.kafka.connect.PgreplConnectorConfig.DecimalMode;
import io.pgrepl.kafka.connect.PgreplConnectorConfig.TimePrecisionMode;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.IntFunction;
import java.util.function.IntUnaryOperator;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;

/**
 * PostgreSQL types to Connect schemas and values, following Debezium's PostgreSQL connector's
 * defaults and logical names (its PostgresValueConverter), so records are interchangeable. The
 * input is what {@link io.pgrepl.codec.value.PgValues#decode} gives for the text format.
 * Differences from Debezium are listed in docs/kafka-connect.md.
 */
final class ValueConverters {
    static final String DATE = "io.debezium.time.Date";
    static final String TIME_MS = "io.debezium.time.Time";
    static final String MICRO_TIME = "io.debezium.time.MicroTime";
    static final String TIMESTAMP_MS = "io.debezium.time.Timestamp";
    static final String MICRO_TIMESTAMP = "io.debezium.time.MicroTimestamp";
    static final String ZONED_TIMESTAMP = "io.debezium.time.ZonedTimestamp";
    static final String ZONED_TIME = "io.debezium.time.ZonedTime";
    static final String MICRO_DURATION = "io.debezium.time.MicroDuration";
    static final String UUID_NAME = "io.debezium.data.Uuid";
    static final String JSON_NAME = "io.debezium.data.Json";
    static final String VARIABLE_SCALE_DECIMAL = "io.debezium.data.VariableScaleDecimal";
    static final String ENUM_NAME = "io.debezium.data.Enum";
    static final String BITS_NAME = "io.debezium.data.Bits";
    static final String XML_NAME = "io.debezium.data.Xml";
    /** Built-in OIDs the codec has no constant for. */
    static final int MONEY = 790;
    static final int XML = 142;
    static final int BIT = 1560;
    static final int VARBIT = 1562;
    /** Debezium's money.fraction.digits default: money is a Decimal of this scale. */
    static final int MONEY_SCALE = 2;
    private static final long MICROS_PER_DAY = 86_400_000_000L;
    /** Debezium's MicroDuration: a month is 365.25 / 12 = 30.4375 days, a whole number of microseconds. */
    static final long MICROS_PER_MONTH_AVG = 30 * MICROS_PER_DAY + MICROS_PER_DAY * 7 / 16;

    static final Schema VARIABLE_SCALE_DECIMAL_SCHEMA = SchemaBuilder.struct().name(VARIABLE_SCALE_DECIMAL)
            .version(1).doc("Variable scaled decimal")
            .field("scale", Schema.INT32_SCHEMA).field("value", Schema.BYTES_SCHEMA).optional().build();

    /** A column's schema and the conversion of its decoded value. */
    record Column(String name, int typeOid, Schema schema, Function<Object, Object> convert) {
        Column withName(String n) {
            return new Column(n, typeOid, schema, convert);
        }
    }

    private final DecimalMode decimalMode;
    private final BinaryMode binaryMode;
    private final TimePrecisionMode timeMode;
    /** An enum type's labels, comma-separated in sort order; null for a type that is not an enum. */
    private final IntFunction<String> enumLabels;
    /** The enum type whose array type this is; 0 for any other type. */
    private final IntUnaryOperator enumOfArray;

    ValueConverters(DecimalMode decimalMode, BinaryMode binaryMode, TimePrecisionMode timeMode,
                    IntFunction<String> enumLabels, IntUnaryOperator enumOfArray) {
        this.decimalMode = decimalMode;
        this.binaryMode = binaryMode;
        this.timeMode = timeMode;
        this.enumLabels = enumLabels;
        this.enumOfArray = enumOfArray;
    }

    Column column(ColumnInfo c, boolean optional) {
        int oid = c.typeOid();
        int element = PgType.elementOf(oid);
        // The codec knows no user type, so an enum array arrives as its text: parsed here as text[] is.
        int enumElement = element == 0 && oid >= EnumTypes.FIRST_NORMAL_OID ? enumOfArray.applyAsInt(oid) : 0;
        boolean enumArray = enumElement != 0;
        if (enumArray) element = enumElement;
        SchemaBuilder b;
        Function<Object, Object> f;
        if (element != 0) {
            Column e = scalar(element, -1, true);
            b = SchemaBuilder.array(e.schema());
            Function<Object, Object> ef = e.convert();
            f = v -> {
                List<Object> out = new ArrayList<>();
                flatten(enumArray ? textArray((String) v) : (List<?>) v, ef, out);
                return out;
            };
            if (optional) b.optional();
            return new Column(c.name(), oid, b.build(), f);
        }
        return scalar(oid, c.typmod(), optional).withName(c.name());
    }

    private static List<?> textArray(String text) {
        return (List<?>) PgValues.decode(PgType.TEXT_ARRAY, false, Unpooled.wrappedBuffer(text.getBytes(StandardCharsets.UTF_8)));
    }

    /** Multi-dimensional arrays are flattened in row-major order (Connect's ARRAY has one element schema). */
    private static void flatten(List<?> list, Function<Object, Object> ef, List<Object> out) {
        for (Object o : list) {
            if (o instanceof List<?> inner) flatten(inner, ef, out);
            else out.add(o == null ? null : ef.apply(o));
        }
    }

    private Column scalar(int oid, int typmod, boolean optional) {
        SchemaBuilder b;
        Function<Object, Object> f = v -> v;
        switch (oid) {
            case PgType.BOOL -> b = SchemaBuilder.bool();
            case PgType.INT2 -> b = SchemaBuilder.int16();
            case PgType.INT4 -> b = SchemaBuilder.int32();
            case PgType.INT8, PgType.OID -> b = SchemaBuilder.int64();
            case PgType.FLOAT4 -> b = SchemaBuilder.float32();
            case PgType.FLOAT8 -> b = SchemaBuilder.float64();
            case PgType.NUMERIC -> {
                return numeric(typmod, optional);
            }
            case MONEY -> {
                return money(optional);
            }
            case XML -> b = SchemaBuilder.string().name(XML_NAME).version(1);
            case BIT, VARBIT -> {
                if (typmod == 1) {
                    // bit(1) is a flag, as Debezium maps it
                    b = SchemaBuilder.bool();
                    f = v -> ((String) v).indexOf('1') >= 0;
                } else {
                    b = SchemaBuilder.bytes().name(BITS_NAME).parameter("length", Integer.toString(typmod))
                            .version(1);
                    f = v -> ByteBuffer.wrap(bits((String) v));
                }
            }
            case PgType.UUID -> {
                b = SchemaBuilder.string().name(UUID_NAME).version(1);
                f = v -> ((UUID) v).toString();
            }
            case PgType.JSON, PgType.JSONB -> b = SchemaBuilder.string().name(JSON_NAME).version(1);
            case PgType.BYTEA -> {
                switch (binaryMode) {
                    case BYTES -> {
                        b = SchemaBuilder.bytes();
                        f = v -> ByteBuffer.wrap((byte[]) v);
                    }
                    case BASE64 -> {
                        b = SchemaBuilder.string();
                        f = v -> Base64.getEncoder().encodeToString((byte[]) v);
                    }
                    default -> {
                        b = SchemaBuilder.string();
                        f = v -> HexFormat.of().formatHex((byte[]) v);
                    }
                }
            }
            case PgType.DATE -> {
                if (timeMode == TimePrecisionMode.CONNECT) {
                    b = Date.builder();
                    f = v -> new java.util.Date(clampDays((LocalDate) v) * 86_400_000L);
                } else {
                    b = SchemaBuilder.int32().name(DATE).version(1);
                    f = v -> (int) clampDays((LocalDate) v);
                }
            }
            case PgType.TIME -> {
                int p = typmod < 0 ? 6 : typmod;
                if (timeMode == TimePrecisionMode.CONNECT) {
                    b = Time.builder();
                    f = v -> new java.util.Date(microOfDay((LocalTime) v) / 1000);
                } else if (timeMode == TimePrecisionMode.ADAPTIVE && p <= 3) {
                    b = SchemaBuilder.int32().name(TIME_MS).version(1);
                    f = v -> (int) (microOfDay((LocalTime) v) / 1000);
                } else {
                    b = SchemaBuilder.int64().name(MICRO_TIME).version(1);
                    f = v -> microOfDay((LocalTime) v);
                }
            }
            case PgType.TIMESTAMP -> {
                int p = typmod < 0 ? 6 : typmod;
                if (timeMode == TimePrecisionMode.CONNECT) {
                    b = Timestamp.builder();
                    f = v -> new java.util.Date(Math.floorDiv(epochMicros((LocalDateTime) v), 1000));
                } else if (p <= 3) {
                    b = SchemaBuilder.int64().name(TIMESTAMP_MS).version(1);
                    f = v -> Math.floorDiv(epochMicros((LocalDateTime) v), 1000);
                } else {
                    b = SchemaBuilder.int64().name(MICRO_TIMESTAMP).version(1);
                    f = v -> epochMicros((LocalDateTime) v);
                }
            }
            case PgType.TIMESTAMPTZ -> {
                // Debezium pads the fraction to the declared precision (typmod; -1 means the default, 6)
                int p = typmod < 0 ? 6 : Math.min(typmod, 6);
                b = SchemaBuilder.string().name(ZONED_TIMESTAMP).version(1);
                f = v -> ZonedTimestamps.format((Instant) v, p);
            }
            case PgType.TIMETZ -> {
                b = SchemaBuilder.string().name(ZONED_TIME).version(1);
                f = v -> zonedTime((OffsetTime) v);
            }
            case PgType.INTERVAL -> {
                b = SchemaBuilder.int64().name(MICRO_DURATION).version(1);
                f = v -> microDuration((PgInterval) v);
            }
            case PgType.PG_LSN -> {
                // A string of the position in bytes, as before pg_lsn decoded to Lsn (records keep their form)
                b = SchemaBuilder.string();
                f = v -> Long.toUnsignedString(((io.pgrepl.codec.Lsn) v).value());
            }
            default -> {
                // text, varchar, bpchar, name, char and every type without a mapping: the text form
                String labels = oid >= EnumTypes.FIRST_NORMAL_OID ? enumLabels.apply(oid) : null;
                b = SchemaBuilder.string();
                if (labels != null) b.name(ENUM_NAME).parameter("allowed", labels).version(1);
                f = String::valueOf;
            }
        }
        if (optional) b.optional();
        return new Column(null, oid, b.build(), f);
    }

    private Column numeric(int typmod, boolean optional) {
        switch (decimalMode) {
            case DOUBLE -> {
                SchemaBuilder b = SchemaBuilder.float64();
                if (optional) b.optional();
                return new Column(null, PgType.NUMERIC, b.build(), v -> ((Number) v).doubleValue());
            }
            case STRING -> {
                SchemaBuilder b = SchemaBuilder.string();
                if (optional) b.optional();
                return new Column(null, PgType.NUMERIC, b.build(),
                        v -> v instanceof BigDecimal d ? d.toPlainString() : doubleName((Double) v));
            }
            default -> {
                if (typmod < 0) {
                    // No declared precision: Debezium's VariableScaleDecimal (scale + unscaled bytes).
                    Schema s = optional ? VARIABLE_SCALE_DECIMAL_SCHEMA : SchemaBuilder.struct()
                            .name(VARIABLE_SCALE_DECIMAL).version(1).doc("Variable scaled decimal")
                            .field("scale", Schema.INT32_SCHEMA).field("value", Schema.BYTES_SCHEMA).build();
                    return new Column(null, PgType.NUMERIC, s, v -> {
                        if (!(v instanceof BigDecimal d)) return null; // NaN / ±Infinity have no decimal
                        return new Struct(s).put("scale", d.scale()).put("value", d.unscaledValue().toByteArray());
                    });
                }
                int precision = ((typmod - 4) >> 16) & 0xffff;
                int scale = (short) ((typmod - 4) & 0xffff);
                SchemaBuilder b = Decimal.builder(scale).parameter("connect.decimal.precision", Integer.toString(precision));
                if (optional) b.optional();
                return new Column(null, PgType.NUMERIC, b.build(),
                        v -> v instanceof BigDecimal d ? d.setScale(scale) : null);
            }
        }
    }

    /** money's text (lc_monetary C or en_*: currency sign, group separators, '.' decimal point) as Debezium's types. */
    private Column money(boolean optional) {
        SchemaBuilder b;
        Function<Object, Object> f;
        switch (decimalMode) {
            case DOUBLE -> {
                b = SchemaBuilder.float64();
                f = v -> moneyValue((String) v).doubleValue();
            }
            case STRING -> {
                b = SchemaBuilder.string();
                f = v -> moneyValue((String) v).toPlainString();
            }
            default -> {
                b = Decimal.builder(MONEY_SCALE);
                f = v -> moneyValue((String) v);
            }
        }
        if (optional) b.optional();
        return new Column(null, MONEY, b.build(), f);
    }

    static BigDecimal moneyValue(String text) {
        StringBuilder digits = new StringBuilder(text.length());
        boolean negative = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c >= '0' && c <= '9' || c == '.') digits.append(c);
            else if (c == '-' || c == '(') negative = true;
        }
        BigDecimal d = new BigDecimal(digits.toString()).setScale(MONEY_SCALE, java.math.RoundingMode.HALF_UP);
        return negative ? d.negate() : d;
    }

    /** A bit string ("1010", first character the most significant bit) as Debezium's little-endian BitSet bytes. */
    static byte[] bits(String text) {
        java.util.BitSet set = new java.util.BitSet(text.length());
        int n = text.length();
        for (int i = 0; i < n; i++) {
            if (text.charAt(n - 1 - i) == '1') set.set(i);
        }
        return set.toByteArray();
    }

    private static String doubleName(Double d) {
        return d.isNaN() ? "NaN" : d > 0 ? "Infinity" : "-Infinity";
    }

    private static long clampDays(LocalDate d) {
        if (d.equals(LocalDate.MAX)) return Integer.MAX_VALUE;
        if (d.equals(LocalDate.MIN)) return Integer.MIN_VALUE;
        return d.toEpochDay();
    }

    /** 24:00:00 (LocalTime.MAX from the decoder) is a whole day, as PostgreSQL means it. */
    static long microOfDay(LocalTime t) {
        if (t.equals(LocalTime.MAX)) return MICROS_PER_DAY;
        return t.toNanoOfDay() / 1000;
    }

    /** Infinities and values beyond a long's range saturate at Long.MAX_VALUE / MIN_VALUE. */
    static long epochMicros(LocalDateTime t) {
        if (t.equals(LocalDateTime.MAX)) return Long.MAX_VALUE;
        if (t.equals(LocalDateTime.MIN)) return Long.MIN_VALUE;
        long days = t.toLocalDate().toEpochDay();
        long micros = t.toLocalTime().toNanoOfDay() / 1000;
        try {
            return Math.addExact(Math.multiplyExact(days, MICROS_PER_DAY), micros);
        } catch (ArithmeticException e) {
            return days > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
        }
    }

    static String zonedTime(OffsetTime t) {
        // Debezium shows timetz in UTC; 24:00:00 has no java.time form, so its UTC shift is kept as text.
        if (t.toLocalTime().equals(LocalTime.MAX)) {
            return "24:00:00" + (t.getOffset().equals(ZoneOffset.UTC) ? "Z" : t.getOffset().getId());
        }
        return DateTimeFormatter.ISO_OFFSET_TIME.format(t.withOffsetSameInstant(ZoneOffset.UTC));
    }

    /**
     * Debezium's MicroDuration (int64): months at 365.25/12 days, days at 24 h. Computed exactly
     * (Debezium goes through a double, which differs beyond 2^53 µs, about 285 years); infinite
     * intervals and sums beyond a long saturate at Long.MAX_VALUE / MIN_VALUE.
     */
    static long microDuration(PgInterval v) {
        if (v.equals(PgInterval.POSITIVE_INFINITY)) return Long.MAX_VALUE;
        if (v.equals(PgInterval.NEGATIVE_INFINITY)) return Long.MIN_VALUE;
        try {
            return Math.addExact(Math.addExact(Math.multiplyExact((long) v.months(), MICROS_PER_MONTH_AVG),
                    Math.multiplyExact((long) v.days(), MICROS_PER_DAY)), v.micros());
        } catch (ArithmeticException e) {
            double approx = (double) v.months() * MICROS_PER_MONTH_AVG + (double) v.days() * MICROS_PER_DAY + v.micros();
            return approx > 0 ? Long.MAX_VALUE : Long.MIN_VALUE;
        }
    }
}
