package io.pgrepl.flink;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.codec.pgoutput.ColumnKind;
import io.pgrepl.codec.pgoutput.record.ColumnValue;
import io.pgrepl.codec.pgoutput.record.Tuple;
import io.pgrepl.codec.value.PgType;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.flink.api.common.serialization.SerializerConfigImpl;
import org.apache.flink.api.common.typeutils.TypeSerializer;
import org.apache.flink.core.memory.DataInputDeserializer;
import org.apache.flink.core.memory.DataOutputSerializer;
import org.apache.flink.util.Collector;
import org.junit.jupiter.api.Test;

/**
 * {@link PgRow}'s serializer as Flink uses it between chained operators (copy, object reuse off) and
 * across the network (bytes): a copy holds equal values and shares no list or byte array with the
 * row it was copied from, and the bytes read back to an equal row. The row is made by
 * {@link PgRowDeserializer} from the text values the server sends for these types (the whole job
 * runs against a real server in {@link DeserializersTest}).
 */
class PgRowCopyTest {
    private static ColumnValue text(String name, int oid, String value) {
        return new ColumnValue(name, oid, ColumnKind.TEXT, value.getBytes(StandardCharsets.UTF_8));
    }

    private static PgRow row() {
        Tuple t = new Tuple(List.of(text("id", PgType.INT4, "7"), text("price", PgType.NUMERIC, "12.500"),
                text("at", PgType.TIMESTAMP, "2024-02-29 23:59:58.123"), text("Label \"x\"", PgType.VARCHAR, "ünï"),
                text("tags", PgType.INT4_ARRAY, "{1,NULL,3}"), text("raw", PgType.BYTEA, "\\x00ff"),
                new ColumnValue("gone", PgType.TEXT, ColumnKind.NULL, null)));
        List<PgRow> out = new ArrayList<>();
        new PgRowDeserializer().deserialize(new PgChange(PgChange.Op.UPDATE, new TableName("public", "Typed"), t, true, t, 5, 100, 200),
                new Collector<>() {
                    @Override
                    public void collect(PgRow r) {
                        out.add(r);
                    }

                    @Override
                    public void close() {}
                });
        return out.get(0);
    }

    private static void assertValues(Map<String, Object> m) {
        assertEquals(7, m.get("id"));
        assertEquals(new BigDecimal("12.500"), m.get("price"));
        assertEquals(LocalDateTime.of(2024, 2, 29, 23, 59, 58, 123_000_000), m.get("at"));
        assertEquals("ünï", m.get("Label \"x\""));
        assertEquals(Arrays.asList(1, null, 3), m.get("tags"));
        assertArrayEquals(new byte[] {0, (byte) 0xff}, (byte[]) m.get("raw"));
        assertTrue(m.containsKey("gone") && m.get("gone") == null);
        assertEquals(List.of("id", "price", "at", "Label \"x\"", "tags", "raw", "gone"), List.copyOf(m.keySet()), "column order kept");
    }

    @Test
    void aCopySharesNoMutableValue() {
        PgRow r = row();
        TypeSerializer<PgRow> s = new PgRowDeserializer().getProducedType().createSerializer(new SerializerConfigImpl());
        PgRow c = s.copy(r);
        assertNotSame(r, c);
        assertValues(c.before());
        assertValues(c.after());
        assertEquals(PgChange.Op.UPDATE, c.op());
        assertEquals(new TableName("public", "Typed"), c.table());
        assertEquals(100, c.commitLsn());
        assertEquals(r.commitTime(), c.commitTime());
        assertNotSame(r.after().get("raw"), c.after().get("raw"));
        assertNotSame(r.after().get("tags"), c.after().get("tags"));
        ((byte[]) c.after().get("raw"))[0] = 9;
        ((List<Object>) c.after().get("tags")).clear();
        assertValues(r.after());
    }

    @Test
    void bytesReadBackToAnEqualRow() throws Exception {
        TypeSerializer<PgRow> s = new PgRowDeserializer().getProducedType().createSerializer(new SerializerConfigImpl());
        DataOutputSerializer out = new DataOutputSerializer(256);
        s.serialize(row(), out);
        PgRow back = s.deserialize(new DataInputDeserializer(out.getCopyOfBuffer()));
        assertValues(back.after());
        assertEquals(PgChange.Op.UPDATE, back.op());
        assertNull(s.copy(null));
        assertEquals(new org.apache.flink.api.java.typeutils.GenericTypeInfo<>(PgRow.class).createSerializer(new SerializerConfigImpl())
                .snapshotConfiguration().getClass(), s.snapshotConfiguration().getClass(), "the generic type's snapshot: state written before stays readable");
    }
}
