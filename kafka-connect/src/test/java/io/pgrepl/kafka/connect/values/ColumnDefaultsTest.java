package io.pgrepl.kafka.connect.values;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.pgrepl.codec.value.PgType;
import java.math.BigDecimal;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Default expressions as {@code pg_get_expr} renders them, read as Debezium 3.6.1's
 * PostgresDefaultValueConverter reads them (the expected values follow its rules, including its
 * literal ending at the first quote).
 */
class ColumnDefaultsTest {
    private static final CatalogTypes.Type MOOD = new CatalogTypes.Type(70000, 'e', "Mood", 0, 0, -1, "sad,happy");

    @Test
    void literalsCastsAndNulls() {
        assertEquals("x", ColumnDefaults.raw(PgType.VARCHAR, null, "'x'::character varying"));
        assertEquals("it", ColumnDefaults.raw(PgType.TEXT, null, "'it''s'::text"), "up to the first quote, as Debezium reads it");
        assertEquals("NULL", ColumnDefaults.raw(PgType.VARCHAR, null, "'NULL'::character varying"));
        assertNull(ColumnDefaults.raw(PgType.VARCHAR, null, "NULL::character varying"));
        assertNull(ColumnDefaults.raw(PgType.INT4, null, "NULL::integer"));
        assertEquals(-9L, ColumnDefaults.raw(PgType.INT8, null, "'-9'::bigint"));
        assertEquals(new BigDecimal("1.50"), ColumnDefaults.raw(PgType.NUMERIC, null, "1.50"));
        assertEquals(true, ColumnDefaults.raw(PgType.BOOL, null, "true"));
        assertEquals("101", ColumnDefaults.raw(ValueConverters.BIT, null, "B'101'::\"bit\""));
    }

    @Test
    void computedDefaultsAreTheTypesZero() {
        assertEquals(0, ColumnDefaults.raw(PgType.INT4, null, "nextval('kd_t_id_seq'::regclass)"));
        assertEquals(0L, ColumnDefaults.raw(PgType.INT8, null, "nextval('s.\"Seq\"'::regclass)"));
        assertEquals(UUID.fromString("00000000-0000-0000-0000-000000000000"),
                ColumnDefaults.raw(PgType.UUID, null, "gen_random_uuid()"));
        assertEquals(false, ColumnDefaults.raw(PgType.BOOL, null, "f(1)"));
        assertEquals("", ColumnDefaults.raw(PgType.TEXT, null, "lower('X'::text)"));
        assertEquals("00", ColumnDefaults.raw(ValueConverters.BIT, null, "f()"));
        assertEquals(java.time.LocalDate.of(1970, 1, 1), ColumnDefaults.raw(PgType.DATE, null, "CURRENT_DATE"));
        assertNull(ColumnDefaults.raw(PgType.INTERVAL, null, "make_interval(days => 1)"));
    }

    @Test
    void typesDebeziumHasNoMapperForHaveNone() {
        assertNull(ColumnDefaults.raw(PgType.BYTEA, null, "'\\x01'::bytea"));
        assertNull(ColumnDefaults.raw(PgType.TIMETZ, null, "'12:00:00+02'::time with time zone"));
        CatalogTypes.Type domain = new CatalogTypes.Type(70001, 'd', "pos", 0, PgType.INT4, -1, null);
        assertNull(ColumnDefaults.raw(70001, domain, "3"));
        CatalogTypes.Type array = new CatalogTypes.Type(PgType.TEXT_ARRAY, 'b', "_text", PgType.TEXT, 0, -1, null);
        assertNull(ColumnDefaults.raw(PgType.TEXT_ARRAY, array, "'{a,b}'::text[]"));
    }

    @Test
    void enumsFromTheirCast() {
        assertEquals("happy", ColumnDefaults.raw(70000, MOOD, "'happy'::\"Mood\""));
        assertEquals("happy", ColumnDefaults.raw(70000, MOOD, "'happy'::s1.\"Mood\""));
        assertNull(ColumnDefaults.raw(70000, MOOD, "'happy'::other"));
        assertNull(ColumnDefaults.raw(70000, MOOD, "NULL::\"Mood\""));
    }
}
