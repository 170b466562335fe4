package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.kafka.connect.records.SourceInfo;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Time;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.json.JsonConverter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The oracle is Kafka's own JsonConverter, configured alike: for random schemas of every Connect type
 * and random values, first and later (cached) records alike, the bytes must be the same, and so must
 * the errors.
 */
class CachedSchemaJsonConverterTest {

    static List<Map<String, Object>> configs() {
        List<Map<String, Object>> all = new ArrayList<>();
        for (String decimals : new String[] {"BASE64", "NUMERIC"}) {
            for (boolean replaceNull : new boolean[] {true, false}) {
                Map<String, Object> c = new HashMap<>();
                c.put("schemas.enable", "true");
                c.put("decimal.format", decimals);
                c.put("replace.null.with.default", Boolean.toString(replaceNull));
                all.add(c);
            }
        }
        all.add(Map.of("schemas.enable", "false"));
        return all;
    }

    private static JsonConverter stock(Map<String, Object> config, boolean isKey) {
        JsonConverter c = new JsonConverter();
        c.configure(config, isKey);
        return c;
    }

    private static CachedSchemaJsonConverter cached(Map<String, Object> config, boolean isKey) {
        CachedSchemaJsonConverter c = new CachedSchemaJsonConverter();
        c.configure(config, isKey);
        return c;
    }

    @ParameterizedTest
    @MethodSource("configs")
    void writesTheStockConvertersBytesForRandomSchemasAndValues(Map<String, Object> config) {
        Random random = new Random(20261201L + config.hashCode());
        JsonConverter stock = stock(config, false);
        CachedSchemaJsonConverter cached = cached(config, false);
        int compared = 0;
        int refused = 0;
        for (int s = 0; s < 60; s++) {
            Schema schema = Gen.struct(random, 0, "r" + s);
            for (int v = 0; v < 25; v++) {
                Object value = Gen.value(random, schema);
                byte[] expected;
                try {
                    expected = stock.fromConnectData("t", schema, value);
                } catch (DataException e) {
                    // e.g. a required field left null with replace.null.with.default=false: the same refusal
                    DataException actual = assertThrows(DataException.class, () -> cached.fromConnectData("t", schema, value));
                    assertEquals(e.getMessage(), actual.getMessage());
                    refused++;
                    continue;
                }
                byte[] actual = cached.fromConnectData("t", schema, value);
                assertArrayEquals(expected, actual, () -> "schema " + schema + "\nexpected " + text(expected)
                        + "\nactual   " + text(actual));
                compared++;
            }
        }
        assertEquals(60 * 25, compared + refused);
        assertTrue(compared > 60 * 20, compared + " compared, " + refused + " refused");
    }

    @Test
    void aDebeziumEnvelopeKeepsItsBytesAcrossSchemaVersions() {
        Map<String, Object> config = Map.of("schemas.enable", "true");
        JsonConverter stock = stock(config, false);
        CachedSchemaJsonConverter cached = cached(config, false);
        Random random = new Random(7);
        // Two versions of one table's envelope, alternating: an equal schema never takes the other's prefix.
        Schema v1 = envelope(1, SchemaBuilder.struct().name("p.public.t.Value").version(1).optional()
                .field("id", Schema.INT32_SCHEMA).field("a", Schema.OPTIONAL_STRING_SCHEMA).build());
        Schema v2 = envelope(2, SchemaBuilder.struct().name("p.public.t.Value").version(2).optional()
                .field("id", Schema.INT32_SCHEMA).field("a", Schema.OPTIONAL_STRING_SCHEMA)
                .field("b", Schema.OPTIONAL_INT64_SCHEMA).build());
        for (int i = 0; i < 200; i++) {
            Schema schema = i % 3 == 0 ? v2 : v1;
            Object value = Gen.value(random, schema);
            assertArrayEquals(stock.fromConnectData("p.public.t", schema, value),
                    cached.fromConnectData("p.public.t", schema, value), "record " + i);
        }
        assertEquals(2, cached.cachedSchemas());
    }

    private static Schema envelope(int version, Schema row) {
        return SchemaBuilder.struct().name("p.public.t.Envelope").version(version)
                .field("before", row).field("after", row).field("source", SourceInfo.SCHEMA)
                .field("transaction", SourceInfo.TRANSACTION_SCHEMA).field("op", Schema.STRING_SCHEMA)
                .field("ts_ms", Schema.OPTIONAL_INT64_SCHEMA).build();
    }

    @Test
    void keysAndNullValuesAsTheStockConverterWritesThem() {
        Map<String, Object> config = Map.of("schemas.enable", "true");
        JsonConverter stock = stock(config, true);
        CachedSchemaJsonConverter cached = cached(config, true);
        Schema key = SchemaBuilder.struct().name("p.public.t.Key").field("id", Schema.INT32_SCHEMA).build();
        for (int id = 0; id < 3; id++) {
            Struct k = new Struct(key).put("id", id);
            assertArrayEquals(stock.fromConnectData("t", key, k), cached.fromConnectData("t", key, k));
        }
        // A tombstone (no schema, no value) is null; an optional schema with a null value keeps its schema.
        assertEquals(null, cached.fromConnectData("t", null, null));
        Schema optional = SchemaBuilder.struct().optional().field("id", Schema.INT32_SCHEMA).build();
        assertArrayEquals(stock.fromConnectData("t", optional, null), cached.fromConnectData("t", optional, null));
        assertArrayEquals(stock.fromConnectData("t", optional, null), cached.fromConnectData("t", optional, null));
        // Schema-less data goes through untouched.
        Map<String, Object> map = Map.of("x", 1L, "y", List.of("a", "b"));
        assertArrayEquals(stock.fromConnectData("t", null, map), cached.fromConnectData("t", null, map));
    }

    @Test
    void errorsAreTheStockConvertersOnTheCachedPathToo() {
        Map<String, Object> config = Map.of("schemas.enable", "true");
        JsonConverter stock = stock(config, false);
        CachedSchemaJsonConverter cached = cached(config, false);
        Schema schema = SchemaBuilder.struct().name("s").field("id", Schema.INT32_SCHEMA).build();
        cached.fromConnectData("t", schema, new Struct(schema).put("id", 1)); // caches the prefix
        assertEquals(1, cached.cachedSchemas());
        // A required struct given no value, and a value of another schema.
        DataException expected = assertThrows(DataException.class, () -> stock.fromConnectData("t", schema, null));
        DataException actual = assertThrows(DataException.class, () -> cached.fromConnectData("t", schema, null));
        assertEquals(expected.getMessage(), actual.getMessage());
        Schema other = SchemaBuilder.struct().name("other").field("id", Schema.INT32_SCHEMA).build();
        Struct wrong = new Struct(other).put("id", 2);
        expected = assertThrows(DataException.class, () -> stock.fromConnectData("t", schema, wrong));
        actual = assertThrows(DataException.class, () -> cached.fromConnectData("t", schema, wrong));
        assertEquals(expected.getMessage(), actual.getMessage());
    }

    @Test
    void readsWhatItWroteAsTheStockConverterDoes() {
        Map<String, Object> config = Map.of("schemas.enable", "true");
        CachedSchemaJsonConverter cached = cached(config, false);
        Random random = new Random(3);
        Schema schema = Gen.struct(random, 0, "rt");
        for (int i = 0; i < 20; i++) {
            Object value = Gen.value(random, schema);
            byte[] bytes = cached.fromConnectData("t", schema, value);
            assertEquals(stock(config, false).toConnectData("t", bytes), cached.toConnectData("t", bytes));
        }
    }

    @Test
    void theCacheHoldsAtMostSchemasCacheSizeSchemas() {
        Map<String, Object> config = Map.of("schemas.enable", "true", "schemas.cache.size", "4");
        CachedSchemaJsonConverter cached = cached(config, false);
        JsonConverter stock = stock(config, false);
        for (int i = 0; i < 10; i++) {
            Schema schema = SchemaBuilder.struct().name("s" + i).field("id", Schema.INT32_SCHEMA).build();
            Struct v = new Struct(schema).put("id", i);
            assertArrayEquals(stock.fromConnectData("t", schema, v), cached.fromConnectData("t", schema, v));
        }
        assertEquals(4, cached.cachedSchemas());
    }

    @Test
    void aMessageThatDoesNotSplitIsNeverCached() {
        byte[] payload = "{\"id\":1}".getBytes(StandardCharsets.US_ASCII);
        byte[] good = "{\"schema\":{\"type\":\"int32\"},\"payload\":{\"id\":1}}".getBytes(StandardCharsets.US_ASCII);
        assertArrayEquals("{\"schema\":{\"type\":\"int32\"},\"payload\":".getBytes(StandardCharsets.US_ASCII),
                CachedSchemaJsonConverter.prefixOf(good, payload));
        byte[] none = CachedSchemaJsonConverter.prefixOf(new byte[0], new byte[0]);
        assertEquals(0, none.length);
        for (String bad : new String[] {
                "{\"schema\":{\"type\":\"int32\"},\"payload\":{\"id\":2}}", // another payload
                "{\"payload\":{\"id\":1},\"schema\":{\"type\":\"int32\"}}", // other order
                "{\"schema\":{\"type\":\"int32\"},\"payload\":{\"id\":1} }", // no brace last
                "{\"schemas\":{\"type\":\"int32\"},\"payload\":{\"id\":1}}", // another head
                "{\"id\":1}}"}) {
            assertSame(none, CachedSchemaJsonConverter.prefixOf(bad.getBytes(StandardCharsets.US_ASCII), payload), bad);
        }
        assertSame(none, CachedSchemaJsonConverter.prefixOf(null, payload));
    }

    private static String text(byte[] b) {
        return b == null ? "null" : new String(b, StandardCharsets.UTF_8);
    }

    /** Random Connect schemas (every type, logical types, defaults, nesting) and values that fit them. */
    static final class Gen {
        private static final Schema[] LOGICAL = {
                Decimal.schema(2), Decimal.builder(0).optional().build(), Date.SCHEMA, Time.SCHEMA, Timestamp.SCHEMA,
                Timestamp.builder().optional().build()};

        static Schema struct(Random r, int depth, String name) {
            SchemaBuilder b = SchemaBuilder.struct().name(name);
            if (r.nextBoolean()) b.version(1 + r.nextInt(3));
            if (r.nextInt(4) == 0) b.doc("doc of " + name);
            if (depth > 0 && r.nextBoolean()) b.optional();
            int fields = 1 + r.nextInt(6);
            for (int i = 0; i < fields; i++) b.field("f" + i, any(r, depth + 1, name + "_" + i));
            return b.build();
        }

        static Schema any(Random r, int depth, String name) {
            int k = r.nextInt(depth < 3 ? 16 : 12);
            if (k < 10) {
                Schema.Type type = new Schema.Type[] {Schema.Type.INT8, Schema.Type.INT16, Schema.Type.INT32,
                        Schema.Type.INT64, Schema.Type.FLOAT32, Schema.Type.FLOAT64, Schema.Type.BOOLEAN,
                        Schema.Type.STRING, Schema.Type.BYTES, Schema.Type.STRING}[k];
                SchemaBuilder b = SchemaBuilder.type(type);
                if (r.nextBoolean()) b.optional();
                if (r.nextInt(5) == 0) b.defaultValue(primitive(r, type));
                if (r.nextInt(6) == 0) b.name("io.debezium.time.ZonedTimestamp").version(1);
                if (r.nextInt(8) == 0) b.parameter("allowed", "a,b,c");
                return b.build();
            }
            if (k < 12) return LOGICAL[r.nextInt(LOGICAL.length)];
            if (k == 12) return struct(r, depth, name);
            if (k == 13) {
                SchemaBuilder b = SchemaBuilder.array(any(r, depth + 1, name + "_e"));
                return r.nextBoolean() ? b.optional().build() : b.build();
            }
            if (k == 14) return SchemaBuilder.map(Schema.STRING_SCHEMA, any(r, depth + 1, name + "_v")).optional().build();
            return SchemaBuilder.map(Schema.INT32_SCHEMA, Schema.OPTIONAL_STRING_SCHEMA).build();
        }

        static Object value(Random r, Schema s) {
            if (s.isOptional() && r.nextInt(5) == 0) return null;
            if (s.name() != null) {
                switch (s.name()) {
                    case Decimal.LOGICAL_NAME -> {
                        int scale = Integer.parseInt(s.parameters().get(Decimal.SCALE_FIELD));
                        return new BigDecimal(new BigInteger(1 + r.nextInt(90), r).subtract(BigInteger.TEN.pow(8)), scale);
                    }
                    case Date.LOGICAL_NAME -> {
                        return new java.util.Date(86_400_000L * (r.nextInt(40_000) - 20_000));
                    }
                    case Time.LOGICAL_NAME -> {
                        return new java.util.Date(r.nextInt(86_400_000));
                    }
                    case Timestamp.LOGICAL_NAME -> {
                        return new java.util.Date(r.nextLong() % 4_000_000_000_000L);
                    }
                    default -> { }
                }
            }
            return switch (s.type()) {
                case STRUCT -> {
                    Struct st = new Struct(s);
                    for (Field f : s.fields()) {
                        // A field with a default is sometimes left unset: the converter writes the default.
                        if (f.schema().defaultValue() != null && r.nextInt(4) == 0) continue;
                        Object v = value(r, f.schema());
                        if (v != null) st.put(f, v);
                    }
                    yield st;
                }
                case ARRAY -> {
                    List<Object> list = new ArrayList<>();
                    int n = r.nextInt(4);
                    for (int i = 0; i < n; i++) list.add(value(r, s.valueSchema()));
                    yield list;
                }
                case MAP -> {
                    Map<Object, Object> map = new HashMap<>();
                    int n = r.nextInt(4);
                    for (int i = 0; i < n; i++) {
                        map.put(value(r, s.keySchema()), value(r, s.valueSchema()));
                    }
                    yield map;
                }
                default -> primitive(r, s.type());
            };
        }

        static Object primitive(Random r, Schema.Type type) {
            return switch (type) {
                case INT8 -> (byte) r.nextInt();
                case INT16 -> (short) r.nextInt();
                case INT32 -> r.nextInt();
                case INT64 -> r.nextLong();
                case FLOAT32 -> r.nextInt(10) == 0 ? Float.NaN : r.nextFloat() * 1e6f;
                case FLOAT64 -> r.nextInt(10) == 0 ? Double.NEGATIVE_INFINITY : r.nextGaussian() * 1e12;
                case BOOLEAN -> r.nextBoolean();
                case STRING -> string(r);
                case BYTES -> {
                    byte[] b = new byte[r.nextInt(12)];
                    r.nextBytes(b);
                    yield b;
                }
                default -> throw new IllegalArgumentException(type.toString());
            };
        }

        private static final String[] SAMPLES = {
                "", "plain", "quote \" backslash \\ tab \t newline \n", "emoji \uD83D\uDE00", "nul \u0000 ctl \u001f",
                "accents é ü ß", "</script>"};

        static String string(Random r) {
            return SAMPLES[r.nextInt(SAMPLES.length)] + (r.nextBoolean() ? Integer.toString(r.nextInt(1000)) : "");
        }
    }
}
