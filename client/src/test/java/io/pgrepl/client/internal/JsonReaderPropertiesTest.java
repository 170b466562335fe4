package io.pgrepl.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The reader against Jackson, a real parser: same values for valid JSON, both refuse the rest. */
class JsonReaderPropertiesTest {
    private static final ObjectMapper JACKSON = new ObjectMapper()
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
            .enable(DeserializationFeature.USE_BIG_INTEGER_FOR_INTS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    private final JsonReader reader = new JsonReader(1 << 20, 64);

    @Provide
    Arbitrary<Object> values() {
        Arbitrary<Object> scalars = Arbitraries.oneOf(
                Arbitraries.strings().all().ofMaxLength(12).map(s -> (Object) s),
                Arbitraries.strings().withChars("\"\\/\b\f\n\r\t\u0000\u001f\u007f\u00e9\u2028").ofMaxLength(6).map(s -> (Object) s),
                Arbitraries.longs().map(l -> (Object) BigDecimal.valueOf(l)),
                Arbitraries.bigDecimals().ofScale(4).map(d -> (Object) d),
                Arbitraries.doubles().map(d -> (Object) new BigDecimal(Double.toString(d))),
                Arbitraries.of(Boolean.TRUE, Boolean.FALSE).map(b -> (Object) b),
                Arbitraries.just(null));
        return Arbitraries.recursive(() -> scalars, inner -> Arbitraries.oneOf(
                inner.list().ofMaxSize(4).map(l -> (Object) l),
                Combinators.combine(Arbitraries.strings().ofMaxLength(5), inner).as((k, v) -> (Map.Entry<String, Object>) new java.util.AbstractMap.SimpleEntry<>(k, v)).list().ofMaxSize(4)
                        .map(entries -> {
                            Map<String, Object> m = new LinkedHashMap<>();
                            entries.forEach(e -> m.putIfAbsent(e.getKey(), e.getValue()));
                            return (Object) m;
                        })), 0, 4);
    }

    /** Jackson writes it (compact or pretty), the reader reads the same value Jackson reads. */
    @Property(tries = 600, edgeCases = EdgeCasesMode.NONE)
    void readsWhatJacksonWrites(@ForAll("values") Object value, @ForAll boolean pretty) throws Exception {
        String json = pretty ? JACKSON.writerWithDefaultPrettyPrinter().writeValueAsString(value) : JACKSON.writeValueAsString(value);
        assertEquals(normal(JACKSON.readValue(json, Object.class)), normal(reader.read(json)), json);
    }

    /** What the writer writes, Jackson and the reader both read back as the value written. */
    @Property(tries = 600, edgeCases = EdgeCasesMode.NONE)
    void roundTripsThroughTheWriter(@ForAll("values") Object value) throws Exception {
        String json = JsonWriter.write(value);
        assertEquals(normal(value), normal(reader.read(json)), json);
        assertEquals(normal(value), normal(JACKSON.readValue(json, Object.class)), json);
    }

    /** Damaged JSON: accepted by both with the same value, or refused by both. */
    @Property(tries = 600, edgeCases = EdgeCasesMode.NONE)
    void agreesWithJacksonOnDamagedJson(@ForAll("values") Object value, @ForAll("edits") List<int[]> edits) throws Exception {
        StringBuilder b = new StringBuilder(JsonWriter.write(value));
        String alphabet = "{}[]:,\"\\ 0123456789.eE+-tfnulax\n\u0001";
        for (int[] e : edits) {
            int at = Math.floorMod(e[1], b.length() + 1);
            switch (Math.floorMod(e[0], 3)) {
                case 0 -> b.insert(at, alphabet.charAt(Math.floorMod(e[2], alphabet.length())));
                case 1 -> { if (at < b.length()) b.deleteCharAt(at); }
                default -> b.setLength(at);
            }
        }
        String json = b.toString();
        Object jackson;
        try {
            jackson = normal(JACKSON.readValue(json, Object.class));
        } catch (JsonProcessingException | NumberFormatException e) {
            // Jackson reports an exponent beyond BigDecimal's range as NumberFormatException.
            String refused = refusal(json);
            assertTrue(refused != null, "Jackson refused what the reader accepted: " + json + " (" + e.getMessage() + ")");
            return;
        }
        String refused = refusal(json);
        if (refused != null && refused.startsWith("unpaired surrogate")) return; // stricter than Jackson on purpose
        // Jackson takes a non-ASCII char among a backslash-u escape's four digits (seen: U+0130) as a hex digit;
        // JSON allows only 0-9, a-f, A-F there.
        if (refused != null && refused.startsWith("invalid \\u escape at offset ")) {
            int at = Integer.parseInt(refused.substring("invalid \\u escape at offset ".length()).trim());
            String digits = json.substring(Math.min(json.length(), at + 2), Math.min(json.length(), at + 6));
            if (digits.chars().anyMatch(c -> c > 127)) return;
        }
        assertEquals(null, refused, "the reader refused what Jackson accepted: " + json);
        assertEquals(jackson, normal(reader.read(json)), json);
    }

    @Provide
    Arbitrary<List<int[]>> edits() {
        return Arbitraries.integers().array(int[].class).ofSize(3).list().ofMinSize(1).ofMaxSize(3);
    }

    private String refusal(String json) {
        try {
            reader.read(json);
            return null;
        } catch (JsonReader.JsonException e) {
            assertTrue(e.offset() >= 0 && e.offset() <= json.length(), "offset within the text: " + e.getMessage());
            return e.getMessage();
        }
    }

    /** Numbers compared by value (1.0 = 1), maps by content. */
    static Object normal(Object v) {
        if (v instanceof Number n) return new BigDecimal(n.toString()).stripTrailingZeros();
        if (v instanceof Map<?, ?> m) {
            Map<Object, Object> out = new LinkedHashMap<>();
            m.forEach((k, x) -> out.put(k, normal(x)));
            return out;
        }
        if (v instanceof List<?> l) {
            List<Object> out = new ArrayList<>();
            l.forEach(x -> out.add(normal(x)));
            return out;
        }
        return v;
    }
}
