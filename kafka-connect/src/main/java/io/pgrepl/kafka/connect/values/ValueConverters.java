package io.pgrepl.kafka.connect.values;

import io.netty.buffer.Unpooled;
import io.pgrepl.codec.pgoutput.ColumnInfo;
import io.pgrepl.codec.value.PgType;
import io.pgrepl.codec.value.PgValues;
import io.pgrepl.kafka.connect.PgreplConnectorConfig.BinaryMode;
import io.pgrepl.kafka.connect.PgreplConnectorConfig.DecimalMode;
import io.pgrepl.kafka.connect.PgreplConnectorConfig.HstoreMode;
import io.pgrepl.kafka.connect.PgreplConnectorConfig.IntervalMode;
import io.pgrepl.kafka.connect.PgreplConnectorConfig.TimePrecisionMode;
import io.pgrepl.kafka.connect.PgreplConnectorConfig;
import io.pgrepl.kafka.connect.offsets.Json;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
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
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/**
 * PostgreSQL types to Connect schemas and values, following Debezium's PostgreSQL connector's
 * defaults and logical names (its PostgresValueConverter), so records are interchangeable. The
 * input is what {@link io.pgrepl.codec.value.PgValues#decode} gives for the text format; a type
 * the codec does not know (a domain, an array of one, an extension type) arrives as its text and is
 * decoded here after the catalog says what it is ({@link CatalogTypes}). Differences from Debezium
 * are listed in docs/kafka-connect.md.
 */
public final class ValueConverters {
    static final String ZONED_TIMESTAMP = "io.debezium.time.ZonedTimestamp";
    static final String ZONED_TIME = "io.debezium.time.ZonedTime";
    static final String UUID_NAME = "io.debezium.data.Uuid";
    static final String JSON_NAME = "io.debezium.data.Json";
    static final String VARIABLE_SCALE_DECIMAL = "io.debezium.data.VariableScaleDecimal";
    static final String ENUM_NAME = "io.debezium.data.Enum";
    static final String BITS_NAME = "io.debezium.data.Bits";
    static final String XML_NAME = "io.debezium.data.Xml";
    static final String TSVECTOR_NAME = "io.debezium.data.Tsvector";
    static final String LTREE_NAME = "io.debezium.data.Ltree";
    /** Built-in OIDs the codec has no constant for. */
    static final int MONEY = 790;
    static final int XML = 142;
    static final int BIT = 1560;
    static final int VARBIT = 1562;
    static final int POINT = 600;
    static final int TSVECTOR = 3614;
    /** Debezium's money.fraction.digits default: money is a Decimal of this scale unless it says otherwise. */
    static final int MONEY_SCALE = 2;
    /** The length Debezium gives an unbounded varbit (its JDBC column size). */
    static final int UNBOUNDED_BITS = Integer.MAX_VALUE;

    static final Schema VARIABLE_SCALE_DECIMAL_SCHEMA = SchemaBuilder.struct().name(VARIABLE_SCALE_DECIMAL)
            .version(1).doc("Variable scaled decimal")
            .field("scale", Schema.INT32_SCHEMA).field("value", Schema.BYTES_SCHEMA).optional().build();

    /**
     * Built-in types Debezium maps (to text, or to structs pgrepl sends as text) that reach the
     * text branch: every other built-in type there is one Debezium knows no mapping for.
     */
    private static final java.util.Set<Integer> KNOWN_AS_TEXT = java.util.Set.of(PgType.TEXT, PgType.VARCHAR, PgType.BPCHAR,
            PgType.NAME, PgType.CHAR, 869 /* inet */, 650 /* cidr */, 829 /* macaddr */, 774 /* macaddr8 */,
            3904 /* int4range */, 3906 /* numrange */, 3908 /* tsrange */, 3910 /* tstzrange */, 3912 /* daterange */,
            3926 /* int8range */, 601 /* lseg */, 602 /* path */, 603 /* box */, 604 /* polygon */, 628 /* line */,
            718 /* circle */);
    /** Extension types Debezium maps, by name (pgrepl sends those it has no mapping for as text). */
    private static final java.util.Set<String> KNOWN_EXTENSION_TYPES = java.util.Set.of("citext", "isbn", "geometry",
            "geography", "vector", "halfvec", "sparsevec");

    /**
     * A column's schema and the conversion of its decoded value; a null schema: a column of a type
     * with no mapping that include.unknown.datatypes=false leaves out of the records.
     */
    public record Column(String name, int typeOid, Schema schema, Function<Object, Object> convert) {
        public Column withName(String n) {
            return new Column(n, typeOid, schema, convert);
        }

        /** {@return whether the column is left out of the records (its type has no mapping)} */
        public boolean omitted() {
            return schema == null;
        }
    }

    /**
     * The handling modes that shape schemas and values.
     *
     * @param includeUnknown include.unknown.datatypes: a column of a type with no mapping is sent as
     *                       the bytes of its text form (binary.handling.mode applies), as Debezium
     *                       sends it; false leaves it out
     * @param moneyDigits    money.fraction.digits: the scale of money's Decimal (decimal.handling.mode=precise)
     */
    public record Modes(DecimalMode decimal, BinaryMode binary, TimePrecisionMode time, IntervalMode interval, HstoreMode hstore,
                        boolean includeUnknown, int moneyDigits) {
        public Modes(DecimalMode decimal, BinaryMode binary, TimePrecisionMode time, IntervalMode interval, HstoreMode hstore) {
            this(decimal, binary, time, interval, hstore, false);
        }

        public Modes(DecimalMode decimal, BinaryMode binary, TimePrecisionMode time, IntervalMode interval, HstoreMode hstore,
                     boolean includeUnknown) {
            this(decimal, binary, time, interval, hstore, includeUnknown, MONEY_SCALE);
        }

        public static Modes of(PgreplConnectorConfig c) {
            return new Modes(c.decimalMode(), c.binaryMode(), c.timePrecisionMode(), c.intervalMode(), c.hstoreMode(),
                    c.includeUnknownDatatypes(), c.moneyFractionDigits());
        }
    }

    private final DecimalMode decimalMode;
    private final BinaryMode binaryMode;
    private final TimePrecisionMode timeMode;
    private final IntervalMode intervalMode;
    private final HstoreMode hstoreMode;
    private final boolean includeUnknown;
    private final int moneyDigits;
    private final CatalogTypes types;

    public ValueConverters(Modes modes, CatalogTypes types) {
        this.decimalMode = modes.decimal();
        this.binaryMode = modes.binary();
        this.timeMode = modes.time();
        this.intervalMode = modes.interval();
        this.hstoreMode = modes.hstore();
        this.includeUnknown = modes.includeUnknown();
        this.moneyDigits = modes.moneyDigits();
        this.types = types;
    }

    public Column column(ColumnInfo c, boolean optional) {
        return mapping(c.typeOid(), c.typmod(), optional).withName(c.name());
    }

    /**
     * {@code c} with the default value {@code expression} (the catalog's, {@code pg_get_expr})
     * gives its field, as Debezium gives it ({@link ColumnDefaults}); {@code c} itself when none.
     */
    public Column withDefault(Column c, String expression) {
        return expression == null ? c : ColumnDefaults.apply(c, types.get(c.typeOid()), expression);
    }

    /**
     * Type {@code oid} with modifier {@code typmod}: a domain as its base type (with the domain's
     * modifier when the column has none), an array as an ARRAY of its element's mapping (the
     * column's modifier is the elements'), anything else by {@link #scalar}.
     */
    private Column mapping(int oid, int typmod, boolean optional) {
        int element = PgType.elementOf(oid);
        if (element != 0) return array(oid, element, typmod, false, optional);
        CatalogTypes.Type t = types.get(oid);
        if (t != null && t.kind() == 'd') {
            Column base = mapping(t.base(), typmod < 0 ? t.baseTypmod() : typmod, optional);
            if (base.omitted()) return new Column(null, oid, null, base.convert());
            // The codec does not know the domain: its value arrives as text, decoded here as the base type's.
            Function<Object, Object> f = fromText(t.base(), base.convert());
            return new Column(null, oid, base.schema(), f);
        }
        if (t != null && t.element() != 0) return array(oid, t.element(), typmod, true, optional);
        return scalar(oid, typmod, t, optional);
    }

    /**
     * An ARRAY of {@code element}'s mapping; multi-dimensional arrays are flattened in row-major
     * order (Connect's ARRAY has one element schema). {@code asText}: the codec does not know the
     * array type, so the value is its text, split as text[] is and each element decoded here.
     */
    private Column array(int oid, int element, int typmod, boolean asText, boolean optional) {
        Column e = mapping(element, typmod, true);
        if (e.omitted()) return new Column(null, oid, null, v -> null);
        Function<Object, Object> ef = asText ? fromText(resolved(element), e.convert()) : e.convert();
        SchemaBuilder b = SchemaBuilder.array(e.schema());
        if (optional) b.optional();
        return new Column(null, oid, b.build(), v -> {
            List<Object> out = new ArrayList<>();
            flatten(asText ? textArray((String) v) : (List<?>) v, ef, out);
            return out;
        });
    }

    /** A domain's base type, through domains over domains. */
    private int resolved(int oid) {
        CatalogTypes.Type t = types.get(oid);
        return t != null && t.kind() == 'd' ? resolved(t.base()) : oid;
    }

    /** {@code convert} applied to text decoded as type {@code oid} (text stays text for types the codec does not know). */
    private Function<Object, Object> fromText(int oid, Function<Object, Object> convert) {
        int base = resolved(oid);
        if (base != oid) return fromText(base, convert);
        return v -> convert.apply(v instanceof String s ? PgValues.decode(oid, false, Unpooled.wrappedBuffer(s.getBytes(StandardCharsets.UTF_8))) : v);
    }

    private static List<?> textArray(String text) {
        return (List<?>) PgValues.decode(PgType.TEXT_ARRAY, false, Unpooled.wrappedBuffer(text.getBytes(StandardCharsets.UTF_8)));
    }

    private static void flatten(List<?> list, Function<Object, Object> ef, List<Object> out) {
        for (Object o : list) {
            if (o instanceof List<?> inner) flatten(inner, ef, out);
            else out.add(o == null ? null : ef.apply(o));
        }
    }

    /** {@code t}: the catalog's entry for a type that is not built in, else null. */
    private Column scalar(int oid, int typmod, CatalogTypes.Type t, boolean optional) {
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
            case TSVECTOR -> b = SchemaBuilder.string().name(TSVECTOR_NAME).version(1);
            case POINT -> {
                b = GeometricPoint.builder();
                if (optional) b.optional();
                Schema s = b.build();
                return new Column(null, oid, s, v -> GeometricPoint.of(s, (String) v));
            }
            case BIT, VARBIT -> {
                if (typmod == 1) {
                    // bit(1) is a flag, as Debezium maps it
                    b = SchemaBuilder.bool();
                    f = v -> ((String) v).indexOf('1') >= 0;
                } else {
                    int length = typmod < 0 ? UNBOUNDED_BITS : typmod;
                    b = SchemaBuilder.bytes().name(BITS_NAME).parameter("length", Integer.toString(length)).version(1);
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
                    case BASE64_URL_SAFE -> {
                        b = SchemaBuilder.string();
                        f = v -> Base64.getUrlEncoder().encodeToString((byte[]) v);
                    }
                    default -> {
                        b = SchemaBuilder.string();
                        f = v -> HexFormat.of().formatHex((byte[]) v);
                    }
                }
            }
            case PgType.DATE, PgType.TIME, PgType.TIMESTAMP, PgType.INTERVAL -> {
                TemporalConverters.Mapping m = switch (oid) {
                    case PgType.DATE -> TemporalConverters.date(timeMode);
                    case PgType.TIME -> TemporalConverters.time(timeMode, typmod);
                    case PgType.TIMESTAMP -> TemporalConverters.timestamp(timeMode, typmod);
                    default -> TemporalConverters.interval(intervalMode);
                };
                b = m.schema();
                f = m.convert();
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
            case PgType.PG_LSN -> {
                // A string of the position in bytes, as before pg_lsn decoded to Lsn (records keep their form)
                b = SchemaBuilder.string();
                f = v -> Long.toUnsignedString(((io.pgrepl.codec.Lsn) v).value());
            }
            default -> {
                if (!knownAsText(oid, t)) return unknown(oid, optional);
                // text, varchar, bpchar, name, char, and the types Debezium maps that pgrepl sends as their text form
                b = SchemaBuilder.string();
                f = String::valueOf;
                if (t != null && t.enumLabels() != null) {
                    b.name(ENUM_NAME).parameter("allowed", t.enumLabels()).version(1);
                } else if (t != null && t.kind() == 'b' && t.name().equals("hstore")) {
                    if (hstoreMode == HstoreMode.MAP) {
                        b = SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA);
                        f = v -> Hstore.parse((String) v);
                    } else {
                        b.name(JSON_NAME).version(1);
                        f = v -> Hstore.json((String) v);
                    }
                } else if (t != null && t.kind() == 'b' && t.name().equals("ltree")) {
                    b.name(LTREE_NAME).version(1);
                }
            }
        }
        if (optional) b.optional();
        return new Column(null, oid, b.build(), f);
    }

    private static boolean knownAsText(int oid, CatalogTypes.Type t) {
        if (KNOWN_AS_TEXT.contains(oid)) return true;
        if (t == null || t.kind() == 'c' || t.kind() == 'm' || t.kind() == 'p' || t.kind() == 'r') return false;
        return t.enumLabels() != null || t.kind() == 'b' && (t.name().equals("hstore") || t.name().equals("ltree")
                || KNOWN_EXTENSION_TYPES.contains(t.name()));
    }

    /**
     * A type neither pgrepl nor Debezium maps (a composite, a multirange, tsquery, a base type of an
     * extension): left out, or with include.unknown.datatypes the bytes of its text form (UTF-8) in
     * binary.handling.mode's representation, as Debezium's converter gives them.
     */
    private Column unknown(int oid, boolean optional) {
        if (!includeUnknown) return new Column(null, oid, null, v -> null);
        SchemaBuilder b;
        Function<Object, Object> f;
        Function<Object, byte[]> bytes = v -> String.valueOf(v).getBytes(StandardCharsets.UTF_8);
        switch (binaryMode) {
            case BYTES -> {
                b = SchemaBuilder.bytes();
                f = v -> ByteBuffer.wrap(bytes.apply(v));
            }
            case BASE64 -> {
                b = SchemaBuilder.string();
                f = v -> Base64.getEncoder().encodeToString(bytes.apply(v));
            }
            case BASE64_URL_SAFE -> {
                b = SchemaBuilder.string();
                f = v -> Base64.getUrlEncoder().encodeToString(bytes.apply(v));
            }
            default -> {
                b = SchemaBuilder.string();
                f = v -> HexFormat.of().formatHex(bytes.apply(v));
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
                f = v -> moneyValue((String) v, MONEY_SCALE).doubleValue();
            }
            case STRING -> {
                b = SchemaBuilder.string();
                f = v -> moneyValue((String) v, MONEY_SCALE).toPlainString();
            }
            default -> {
                // Debezium rounds half up to money.fraction.digits
                b = Decimal.builder(moneyDigits);
                f = v -> moneyValue((String) v, moneyDigits);
            }
        }
        if (optional) b.optional();
        return new Column(null, MONEY, b.build(), f);
    }

    static BigDecimal moneyValue(String text, int scale) {
        StringBuilder digits = new StringBuilder(text.length());
        boolean negative = false;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c >= '0' && c <= '9' || c == '.') digits.append(c);
            else if (c == '-' || c == '(') negative = true;
        }
        BigDecimal d = new BigDecimal(digits.toString());
        return (negative ? d.negate() : d).setScale(scale, java.math.RoundingMode.HALF_UP);
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

    /** NaN and ±Infinity in string mode, named as Debezium's SpecialValueDecimal names them. */
    private static String doubleName(Double d) {
        return d.isNaN() ? "NAN" : d > 0 ? "POSITIVE_INFINITY" : "NEGATIVE_INFINITY";
    }

    static String zonedTime(OffsetTime t) {
        // Debezium shows timetz in UTC; 24:00:00 has no java.time form, so its UTC shift is kept as text.
        if (t.toLocalTime().equals(LocalTime.MAX)) {
            return "24:00:00" + (t.getOffset().equals(ZoneOffset.UTC) ? "Z" : t.getOffset().getId());
        }
        return DateTimeFormatter.ISO_OFFSET_TIME.format(t.withOffsetSameInstant(ZoneOffset.UTC));
    }
}
