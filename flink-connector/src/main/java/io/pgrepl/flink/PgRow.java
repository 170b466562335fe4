package io.pgrepl.flink;

import java.io.Serializable;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A change as plain Java values, for DataStream jobs ({@link PgRowDeserializer}): the operation, the
 * table, the old and new rows by column name with the types of {@link io.pgrepl.codec.value.PgValues#decode}
 * (Integer, Long, BigDecimal, String, LocalDateTime, Instant, LocalDate, byte[], UUID, arrays as
 * lists...), and the transaction's commit LSN and time. Columns the server did not send (the
 * non-key columns of an old key) are left out of the map; SQL NULL is a null value.
 */
public final class PgRow implements Serializable {
    private static final long serialVersionUID = 1L;

    private PgChange.Op op;
    private String schema;
    private String table;
    private LinkedHashMap<String, Object> before;
    private LinkedHashMap<String, Object> after;
    private long commitLsn;
    private long commitTimeMicros;
    private boolean keyChanged;

    /** For serializers. */
    public PgRow() {}

    PgRow(PgChange.Op op, TableName table, LinkedHashMap<String, Object> before, LinkedHashMap<String, Object> after, long commitLsn,
          long commitTimeMicros, boolean keyChanged) {
        this.keyChanged = keyChanged;
        this.op = op;
        this.schema = table.schema();
        this.table = table.table();
        this.before = before;
        this.after = after;
        this.commitLsn = commitLsn;
        this.commitTimeMicros = commitTimeMicros;
    }

    /** {@return what happened} */
    public PgChange.Op op() {
        return op;
    }

    /** {@return the table} */
    public TableName table() {
        return new TableName(schema, table);
    }

    /** {@return the old row or key by column name, or null (inserts, reads, updates that kept their key without a whole old row)} */
    public Map<String, Object> before() {
        return before == null ? null : Collections.unmodifiableMap(before);
    }

    /** {@return the new row by column name, or null for a delete} */
    public Map<String, Object> after() {
        return after == null ? null : Collections.unmodifiableMap(after);
    }

    /** {@return the value of {@code column} in the new row, else in the old one} */
    public Object get(String column) {
        return after != null ? after.get(column) : before == null ? null : before.get(column);
    }

    /** {@return whether this update moved the row to another key: then {@link #before()} holds the old key, which is gone} */
    public boolean keyChanged() {
        return keyChanged;
    }

    /** {@return the commit LSN, 0 for a snapshot read} */
    public long commitLsn() {
        return commitLsn;
    }

    /** {@return the commit time, null for a snapshot read} */
    public Instant commitTime() {
        return op == PgChange.Op.READ ? null : io.pgrepl.codec.PgTime.toInstant(commitTimeMicros);
    }

    /**
     * A copy that shares no mutable value with this row, for Flink's copy between chained operators:
     * the row itself when every value is immutable (the maps are never changed after the row is
     * made, nor handed out but as unmodifiable views), else a row with its maps, lists and byte
     * arrays copied; null when a value is of a type this does not know.
     */
    PgRow deepCopy() {
        if (immutable(before) && immutable(after)) return this;
        LinkedHashMap<String, Object> b = copy(before);
        LinkedHashMap<String, Object> a = copy(after);
        if ((before != null && b == null) || (after != null && a == null)) return null;
        PgRow r = new PgRow();
        r.op = op;
        r.schema = schema;
        r.table = table;
        r.before = b;
        r.after = a;
        r.commitLsn = commitLsn;
        r.commitTimeMicros = commitTimeMicros;
        r.keyChanged = keyChanged;
        return r;
    }

    private static LinkedHashMap<String, Object> copy(LinkedHashMap<String, Object> m) {
        if (m == null) return null;
        LinkedHashMap<String, Object> c = new LinkedHashMap<>((int) (m.size() / 0.75f) + 1);
        for (Map.Entry<String, Object> e : m.entrySet()) {
            Object v = copyValue(e.getValue());
            if (v == UNKNOWN) return null;
            c.put(e.getKey(), v);
        }
        return c;
    }

    private static final Object UNKNOWN = new Object();

    private static boolean immutable(LinkedHashMap<String, Object> m) {
        if (m == null) return true;
        for (Object v : m.values()) {
            if (!isImmutable(v)) return false;
        }
        return true;
    }

    /** The value itself when immutable, a copy of a list or byte array, or {@link #UNKNOWN}. */
    private static boolean isImmutable(Object v) {
        return v == null || v instanceof String || v instanceof Long || v instanceof Integer || v instanceof java.math.BigDecimal
                || v instanceof java.time.Instant || v instanceof java.time.LocalDateTime || v instanceof java.time.LocalDate
                || v instanceof Boolean || v instanceof Short || v instanceof Double || v instanceof Float || v instanceof java.util.UUID
                || v instanceof java.time.LocalTime || v instanceof java.time.OffsetTime;
    }

    private static Object copyValue(Object v) {
        if (isImmutable(v)) return v;
        if (v instanceof byte[] bytes) return bytes.clone();
        if (v instanceof java.util.ArrayList<?> l) {
            java.util.ArrayList<Object> c = new java.util.ArrayList<>(l.size());
            for (Object o : l) {
                Object x = copyValue(o);
                if (x == UNKNOWN) return UNKNOWN;
                c.add(x);
            }
            return c;
        }
        return UNKNOWN;
    }

    @Override
    public String toString() {
        return "PgRow[" + op + " " + schema + "." + table + (before == null ? "" : " before=" + before)
                + (after == null ? "" : " after=" + after) + "]";
    }
}
