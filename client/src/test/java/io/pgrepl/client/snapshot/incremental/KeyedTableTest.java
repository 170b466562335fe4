package io.pgrepl.client.snapshot.incremental;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class KeyedTableTest {
    private static final KeyedTable.Column ID = new KeyedTable.Column("id", "integer", 23);
    private static final KeyedTable.Column NAME = new KeyedTable.Column("name", "text", 25);

    private static KeyedTable single(String filter, String condition) {
        return new KeyedTable("public", "t", false, List.of(ID, NAME), 2, new int[] {0}, filter, condition, 10);
    }

    @Test
    void wholeTableIsOneOrderedLimitedSelect() {
        assertEquals("SELECT \"id\", \"name\" FROM ONLY \"public\".\"t\" ORDER BY \"id\" LIMIT 100",
                single(null, null).chunkSql(null, null, 100));
    }

    @Test
    void singleKeyBoundsAreCastLiterals() {
        assertEquals("SELECT \"id\", \"name\" FROM ONLY \"public\".\"t\" WHERE \"id\" > '5'::integer AND \"id\" <= '90'::integer"
                + " ORDER BY \"id\" LIMIT 7", single(null, null).chunkSql(List.of("5"), List.of("90"), 7));
    }

    @Test
    void filtersComeFirstEachInParentheses() {
        assertEquals("SELECT \"id\", \"name\" FROM ONLY \"public\".\"t\" WHERE (id % 2 = 0) AND (name <> 'x')"
                + " AND \"id\" > '5'::integer ORDER BY \"id\" LIMIT 1",
                single("id % 2 = 0", "name <> 'x'").chunkSql(List.of("5"), null, 1));
        assertEquals("SELECT \"id\", \"name\" FROM ONLY \"public\".\"t\" WHERE (a) ORDER BY \"id\" LIMIT 1",
                single(null, "a").chunkSql(null, null, 1));
    }

    @Test
    void compositeKeyUsesRowComparisonInKeyOrderAndPrefixBounds() {
        KeyedTable.Column region = new KeyedTable.Column("region", "character varying(8)", 1043);
        KeyedTable.Column at = new KeyedTable.Column("at", "timestamp(3) with time zone", 1184);
        // Key (region, id) while columns are in attnum order (id, region, at).
        KeyedTable t = new KeyedTable("s", "orders", true, List.of(ID, region, at), 3, new int[] {1, 0}, null, null, 0);
        assertArrayEquals(new int[] {1, 0}, t.keyColumnIndexes());
        assertEquals(List.of(region, ID), t.keyColumns());
        assertEquals("SELECT \"id\", \"region\", \"at\" FROM \"s\".\"orders\" WHERE (\"region\", \"id\") > ('eu'::character varying(8),"
                + " '3'::integer) AND \"region\" <= 'us'::character varying(8) ORDER BY \"region\", \"id\" LIMIT 50",
                t.chunkSql(List.of("eu", "3"), List.of("us"), 50));
    }

    @Test
    void hostileIdentifiersAndValuesAreQuoted() {
        KeyedTable.Column evil = new KeyedTable.Column("k\"; DROP TABLE x; --", "text", 25);
        KeyedTable t = new KeyedTable("my\"schema", "ta.ble", false, List.of(evil), 1, new int[] {0}, null, null, 0);
        assertEquals("SELECT \"k\"\"; DROP TABLE x; --\" FROM ONLY \"my\"\"schema\".\"ta.ble\" WHERE \"k\"\"; DROP TABLE x; --\""
                + " > 'it''s'::text AND \"k\"\"; DROP TABLE x; --\" <= E'back\\\\slash'' OR 1=1 --'::text"
                + " ORDER BY \"k\"\"; DROP TABLE x; --\" LIMIT 2",
                t.chunkSql(List.of("it's"), List.of("back\\slash' OR 1=1 --"), 2));
    }

    @Test
    void badBoundsAndLimitsAreRefused() {
        KeyedTable t = single(null, null);
        assertEquals("a key bound of public.t needs 1 to 1 values, got 2",
                assertThrows(IllegalArgumentException.class, () -> t.chunkSql(List.of("1", "2"), null, 1)).getMessage());
        assertEquals("a key bound of public.t needs 1 to 1 values, got 0",
                assertThrows(IllegalArgumentException.class, () -> t.chunkSql(null, List.of(), 1)).getMessage());
        assertEquals("a key bound of public.t has a null value",
                assertThrows(IllegalArgumentException.class, () -> t.chunkSql(Arrays.asList((String) null), null, 1)).getMessage());
        assertEquals("chunk size must be at least 1, got 0",
                assertThrows(IllegalArgumentException.class, () -> t.chunkSql(null, null, 0)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> t.chunkSql(List.of("a\0b"), null, 1));
    }

    @Test
    void additionalConditionMustStayOneExpression() {
        for (String ok : List.of("a = 1", "name = 'x; y'", "name = 'it''s' AND (b > 2)", "\"we;ird\" = 1",
                "body = $$ -- ; ) $$", "body = $q$ ; $q$", "x = E'\\' ; '", "price$ > $1", "a = 'x--y' OR b = '/*'")) {
            assertEquals(ok, single(null, ok).additionalCondition(), ok);
        }
        assertEquals("additional condition has a ';' (one expression only) at offset 5",
                message("a = 1; DROP TABLE t"));
        assertEquals("additional condition has a ')' without its '(' at offset 5", message("a = 1) OR (true"));
        assertEquals("additional condition has a '(' without its ')' at offset 6", message("(a = 1"));
        assertEquals("additional condition has a comment at offset 6", message("a = 1 -- )"));
        assertEquals("additional condition has a comment at offset 6", message("a = 1 /* x */"));
        assertEquals("additional condition has an unterminated string literal at offset 4", message("a = 'x"));
        assertEquals("additional condition has an unterminated quoted identifier at offset 0", message("\"a = 1"));
        assertEquals("additional condition has an unterminated dollar-quoted string at offset 4", message("a = $t$ x"));
        // Read with standard_conforming_strings off, the backslash escapes the quote and the ';' is inside;
        // read with it on (the default), the ';' is outside: refused because one of the readings is.
        assertEquals("additional condition has a ';' (one expression only) at offset 7", message("a = '\\'; DROP TABLE t; --'"));
        // Blank is no condition at all.
        assertEquals(null, single(null, "  ").additionalCondition());
    }

    private static String message(String condition) {
        return assertThrows(IllegalArgumentException.class, () -> single(null, condition)).getMessage();
    }
}
