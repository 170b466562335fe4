package io.pgrepl.client.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.math.BigDecimal;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonReaderTest {
    private final JsonReader reader = new JsonReader(1000, 4);

    @Test
    void readsEveryKindOfValue() {
        Map<String, Object> expected = new LinkedHashMap<>();
        expected.put("s", "a\"b\\c/\b\f\n\r\t\u00e9\ud83d\ude00");
        expected.put("n", new BigDecimal("-12.5e3"));
        expected.put("z", new BigDecimal("0"));
        expected.put("t", true);
        expected.put("f", false);
        expected.put("nil", null);
        expected.put("a", Arrays.asList(new BigDecimal("1"), List.of(), Map.of(), ""));
        Object v = reader.read(" {\"s\":\"a\\\"b\\\\c\\/\\b\\f\\n\\r\\t\\u00E9\\ud83d\\ude00\", \"n\" : -12.5e3,\"z\":0,"
                + "\"t\":true,\"f\":false,\"nil\":null,\r\n\t\"a\":[1,[],{},\"\"]} ");
        assertEquals(expected, v);
        assertEquals(List.copyOf(expected.keySet()), List.copyOf(((Map<?, ?>) v).keySet()), "insertion order");
        assertNull(reader.read("null"));
        assertEquals("x", reader.read("\"x\""));
        assertEquals(new BigDecimal("1E+400"), reader.read("1E400"));
    }

    @Test
    void refusesWithWhatAndWhere() {
        assertEquals("unexpected end of input, expected a value at offset 0", error(""));
        assertEquals("unexpected end of input, expected a value at offset 2", error("  "));
        assertEquals("unexpected '}', expected '\"' starting a key at offset 7", error("{\"a\":1,}"));
        assertEquals("unexpected ']', expected a value at offset 3", error("[1,]"));
        assertEquals("unexpected ''', expected a value at offset 0", error("'a'"));
        assertEquals("unexpected '/', expected a value at offset 1", error("[/* c */1]"));
        assertEquals("leading zero in a number at offset 0", error("01"));
        assertEquals("unexpected end of input, expected a digit after '.' at offset 2", error("1."));
        assertEquals("unexpected '.', expected a value at offset 0", error(".5"));
        assertEquals("unexpected '+', expected a value at offset 0", error("+1"));
        assertEquals("unexpected 'N', expected a value at offset 0", error("NaN"));
        assertEquals("unexpected 'e', expected a digit in the exponent at offset 2", error("1ee"));
        assertEquals("unexpected 'x', expected a value at offset 1", error("[x]"));
        assertEquals("unexpected 't', expected a value at offset 0", error("tru"));
        assertEquals("unexpected '2', expected end of input at offset 2", error("1 2"));
        assertEquals("unexpected '}', expected end of input at offset 2", error("{}}"));
        assertEquals("unexpected '1', expected ':' at offset 5", error("{\"a\" 1}"));
        assertEquals("unexpected '\"', expected ',' or '}' at offset 7", error("{\"a\":1 \"b\":2}"));
        assertEquals("unexpected end of input, expected ',' or ']' at offset 2", error("[1"));
        assertEquals("unterminated string starting at offset 1", error("[\"abc"));
        assertEquals("raw control character U+000A in a string at offset 2", error("\"a\nb\""));
        assertEquals("invalid escape \\'x' at offset 2", error("\"a\\x\""));
        assertEquals("invalid \\u escape at offset 1", error("\"\\u12G4\""));
        assertEquals("truncated \\u escape at offset 1", error("\"\\u12\""));
        assertEquals("unpaired surrogate escape at offset 1", error("\"\\ud800\""));
        assertEquals("unpaired surrogate escape at offset 1", error("\"\\ud800\\u0041\""));
        assertEquals("unpaired surrogate escape at offset 1", error("\"\\udc00\""));
        assertEquals("duplicate key \"a\" at offset 7", error("{\"a\":1,\"a\":2}"));
        assertEquals("number out of range at offset 0", error("1e9999999999"));
        assertEquals("unexpected U+FEFF, expected a value at offset 0".replace("U+FEFF", "'\ufeff'"), error("\ufeff{}"));
    }

    @Test
    void limitsAreCheckedBeforeReadingTooMuch() {
        assertEquals("nesting deeper than 4 at offset 4", error("[[[[[1]]]]]"));
        assertEquals(List.of(List.of(List.of(List.of()))), reader.read("[[[[]]]]"));
        assertEquals("nesting deeper than 4 at offset 20", error("{\"a\":{\"b\":{\"c\":{\"d\":{}}}}}"));
        String longText = "\"" + "x".repeat(1000) + "\"";
        JsonReader.JsonException e = assertThrows(JsonReader.JsonException.class, () -> reader.read(longText));
        assertEquals("text longer than 1000 characters at offset 1000", e.getMessage());
        assertEquals(1000, e.offset());
        // Deep nesting far beyond the stack cannot overflow: the depth limit stops it first.
        JsonReader deep = new JsonReader(10_000_000, 64);
        assertEquals("nesting deeper than 64 at offset 64", assertThrows(JsonReader.JsonException.class,
                () -> deep.read("[".repeat(5_000_000))).getMessage());
    }

    @Test
    void writerEscapesWhatTheReaderNeeds() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("k\"\\", Arrays.asList("\u0000\u001f\n\u2028", null, true, new BigDecimal("1.50"), 7L));
        String json = JsonWriter.write(m);
        assertEquals("{\"k\\\"\\\\\":[\"\\u0000\\u001f\\n\\u2028\",null,true,1.50,7]}", json);
        assertEquals(Map.of("k\"\\", Arrays.asList("\u0000\u001f\n\u2028", null, true, new BigDecimal("1.50"), new BigDecimal(7))),
                reader.read(json));
        assertThrows(IllegalArgumentException.class, () -> JsonWriter.write(Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> JsonWriter.write(new Object()));
    }

    private String error(String json) {
        return assertThrows(JsonReader.JsonException.class, () -> reader.read(json)).getMessage();
    }
}
