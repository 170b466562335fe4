package io.pgrepl.kafka.connect.values;

import io.netty.buffer.Unpooled;
import io.pgrepl.codec.value.PgType;
import io.pgrepl.codec.value.PgValues;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;

/**
 * A column's default ({@code pg_get_expr} of {@code pg_attrdef.adbin}) as the default value of its
 * Connect field, by the rules of Debezium 3.6.1's PostgreSQL connector: only for the types it
 * parses (bool, the integer and floating types, numeric, bit and varbit, bpchar, varchar, text,
 * json, jsonb, xml, uuid, date, time, timestamp, timestamptz, interval, enums), from the literal
 * the expression holds; an expression that calls a function (nextval, now) or is one of the SQL
 * current date/time keywords gives the type's zero (0, '', false, the epoch, the nil UUID) in
 * place of a value nobody knows yet; a NULL default, an expression it cannot read, a domain, an
 * array and a numeric without a declared scale (a struct, which Connect cannot hold as a default)
 * give none. The value is then converted as a column value is, so it follows the handling modes.
 */
public final class ColumnDefaults {
    private ColumnDefaults() {}

    /** A quoted literal: its text up to the first quote after it (a doubled quote inside ends it, as in Debezium). */
    private static final Pattern LITERAL = Pattern.compile("'(.*?)'");
    /** A call: an identifier, perhaps qualified or after an opening parenthesis, then an argument list. */
    private static final Pattern CALL = Pattern.compile("^[(]?[A-Za-z0-9_.]+\\((?:.+(?:, ?.+)*)?\\)");
    private static final Set<String> CURRENT = Set.of("current_timestamp", "current_time", "current_date", "localtime",
            "localtimestamp");
    /** Types whose expression is trimmed before it is read. */
    private static final Set<Integer> TRIMMED = Set.of(ValueConverters.BIT, ValueConverters.VARBIT, PgType.BOOL, PgType.NUMERIC,
            PgType.FLOAT4, PgType.FLOAT8, PgType.INT2, PgType.INT4, PgType.INT8, PgType.UUID, PgType.DATE, PgType.TIME,
            PgType.TIMESTAMP, PgType.TIMESTAMPTZ, PgType.INTERVAL);

    /**
     * {@code c}'s schema with the default {@code expression} gives it, or {@code c} as it is when
     * the expression gives none.
     *
     * @param type the column's catalog entry (null for a built-in type that is no array)
     */
    static ValueConverters.Column apply(ValueConverters.Column c, CatalogTypes.Type type, String expression) {
        if (expression == null || c.omitted()) return c;
        try {
            Object raw = raw(c.typeOid(), type, expression);
            if (raw == null) return c;
            Object value = c.convert().apply(raw);
            if (value == null || value instanceof Struct) return c;
            return new ValueConverters.Column(c.name(), c.typeOid(), withDefault(c.schema(), value), c.convert());
        } catch (RuntimeException e) {
            // An expression Debezium cannot evaluate either: no default.
            return c;
        }
    }

    /** The decoded value (what the codec gives for a column value of the type) the expression stands for; null: none. */
    static Object raw(int oid, CatalogTypes.Type type, String expression) {
        if (type != null) {
            // Domains and arrays have no default in Debezium's records; enums are read from their cast literal.
            return type.enumLabels() != null ? enumLiteral(type.name(), expression) : null;
        }
        String x = TRIMMED.contains(oid) ? expression.trim() : expression;
        return switch (oid) {
            case PgType.BOOL -> nullCast(x) ? null : Boolean.parseBoolean(literal(x, "false"));
            case PgType.INT2 -> nullCast(x) ? null : Short.parseShort(literal(x, "0"));
            case PgType.INT4 -> nullCast(x) ? null : Integer.parseInt(literal(x, "0"));
            case PgType.INT8 -> nullCast(x) ? null : Long.parseLong(literal(x, "0"));
            case PgType.FLOAT4 -> nullCast(x) ? null : Float.parseFloat(literal(x, "0.0"));
            case PgType.FLOAT8 -> nullCast(x) ? null : Double.parseDouble(literal(x, "0.0"));
            case PgType.NUMERIC -> nullCast(x) ? null : new BigDecimal(literal(x, "0.0"));
            case ValueConverters.BIT -> literal(x, "00");
            case ValueConverters.VARBIT -> literal(x, "0");
            case PgType.BPCHAR, PgType.VARCHAR, PgType.TEXT, ValueConverters.XML -> literal(x, "");
            case PgType.JSON, PgType.JSONB -> literal(x, "{}");
            case PgType.UUID -> UUID.fromString(literal(x, "00000000-0000-0000-0000-000000000000"));
            case PgType.DATE -> decoded(oid, literal(x, "1970-01-01"));
            case PgType.TIME -> decoded(oid, literal(x, "00:00:00"));
            case PgType.TIMESTAMP -> decoded(oid, literal(x, "1970-01-01 00:00:00"));
            case PgType.TIMESTAMPTZ -> decoded(oid, literal(x, "1970-01-01 00:00:00+00"));
            // No zero is known for an interval computed by a function: left out.
            case PgType.INTERVAL -> computed(x) ? null : decoded(oid, literal(x, null));
            default -> null;
        };
    }

    private static boolean nullCast(String x) {
        return x.startsWith("NULL::");
    }

    private static boolean computed(String x) {
        return CALL.matcher(x).find() || CURRENT.contains(x.toLowerCase(Locale.ROOT));
    }

    /** The literal's text, {@code zero} for a computed default, null for {@code NULL::type}. */
    private static String literal(String x, String zero) {
        if (computed(x)) return zero;
        if (x.indexOf('\'') < 0) return x.startsWith("NULL::") ? null : x;
        Matcher m = LITERAL.matcher(x);
        if (!m.find()) return null;
        return m.group(1);
    }

    private static Object decoded(int oid, String text) {
        return text == null ? null : PgValues.decode(oid, false, Unpooled.wrappedBuffer(text.getBytes(StandardCharsets.UTF_8)));
    }

    /** {@code 'label'::type} (the cast naming the enum, schema-qualified or not) to its label; anything else none. */
    static String enumLiteral(String typeName, String x) {
        int cast = x.lastIndexOf("::");
        if (cast < 0) return null;
        String suffix = x.substring(cast + 2);
        int dot = lastDotOutsideQuotes(suffix);
        String name = unquote(dot < 0 ? suffix : suffix.substring(dot + 1));
        if (!name.equals(typeName)) return null;
        String v = x.substring(0, cast);
        return v.length() >= 2 && v.startsWith("'") && v.endsWith("'") ? v.substring(1, v.length() - 1) : null;
    }

    private static int lastDotOutsideQuotes(String s) {
        boolean quoted = false;
        int dot = -1;
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch == '"') quoted = !quoted;
            else if (ch == '.' && !quoted) dot = i;
        }
        return dot;
    }

    private static String unquote(String s) {
        return s.length() >= 2 && s.startsWith("\"") && s.endsWith("\"") ? s.substring(1, s.length() - 1).replace("\"\"", "\"") : s;
    }

    /** {@code s} with default {@code value} (Connect schemas are immutable: rebuilt as they are). */
    static Schema withDefault(Schema s, Object value) {
        return rebuild(s).defaultValue(value).build();
    }

    /**
     * A builder holding everything of {@code s} but its default value: Connect schemas are immutable,
     * so a field schema that gains a default or parameters is rebuilt from this.
     */
    public static SchemaBuilder rebuild(Schema s) {
        SchemaBuilder b = switch (s.type()) {
            case ARRAY -> SchemaBuilder.array(s.valueSchema());
            case MAP -> SchemaBuilder.map(s.keySchema(), s.valueSchema());
            case STRUCT -> {
                SchemaBuilder st = SchemaBuilder.struct();
                for (Field f : s.fields()) st.field(f.name(), f.schema());
                yield st;
            }
            default -> SchemaBuilder.type(s.type());
        };
        if (s.name() != null) b.name(s.name());
        if (s.version() != null) b.version(s.version());
        if (s.doc() != null) b.doc(s.doc());
        if (s.parameters() != null) b.parameters(s.parameters());
        if (s.isOptional()) b.optional();
        return b;
    }
}
