package io.pgrepl.kafka.connect.metrics;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * The counters both beans share, fed with the change events handed to Kafka Connect (what leaves
 * Debezium's queue is what it counted on the way in, so the figures agree once poll() has run).
 * Written by the task thread, read by JMX threads.
 */
final class EventCounters {
    final AtomicLong total = new AtomicLong();
    final AtomicLong creates = new AtomicLong();
    final AtomicLong updates = new AtomicLong();
    final AtomicLong deletes = new AtomicLong();
    final AtomicLong lastEventMillis = new AtomicLong(-1);
    /** Described only when read: building a string per event would cost every record what only a reader needs. */
    private volatile Event lastEvent;

    /** A change event's parts, or null for what is not one (a heartbeat, a transaction boundary, a notification). */
    record Event(String op, Struct source, Object key, String table) {
        /** {@return the source block's field, or null} */
        Object source(String name) {
            Field f = source.schema().field(name);
            return f == null ? null : source.get(f);
        }
    }

    static Event event(SourceRecord r) {
        if (!(r.value() instanceof Struct v)) return null;
        Field op = v.schema().field("op");
        Field source = v.schema().field("source");
        if (op == null || source == null || !(v.get(op) instanceof String o) || !(v.get(source) instanceof Struct s)) return null;
        Field schema = s.schema().field("schema");
        Field table = s.schema().field("table");
        Object sc = schema == null ? null : s.get(schema);
        Object t = table == null ? null : s.get(table);
        return new Event(o, s, r.key(), sc == null || t == null ? null : sc + "." + t);
    }

    void count(Event e, long now) {
        total.incrementAndGet();
        switch (e.op()) {
            case "c" -> creates.incrementAndGet();
            case "u" -> updates.incrementAndGet();
            case "d" -> deletes.incrementAndGet();
            default -> { } // r, t, m: counted in the total only, as Debezium counts them
        }
        lastEventMillis.set(now);
        lastEvent = e;
    }

    /** {@return the last event's description, or null before the first} */
    String lastEvent() {
        Event e = lastEvent;
        return e == null ? null : summary(e);
    }

    /** Where the event is and its key: the parts of Debezium's summary that pgrepl's events have too. */
    private static String summary(Event e) {
        StringBuilder b = new StringBuilder();
        Map<String, String> position = position(e);
        if (position != null) {
            b.append("position: {");
            String sep = "";
            for (Map.Entry<String, String> p : position.entrySet()) {
                b.append(sep).append(p.getKey()).append(": ").append(p.getValue());
                sep = ", ";
            }
            b.append('}');
        }
        if (e.key() != null) b.append(b.length() == 0 ? "" : ", ").append("key: ").append(e.key());
        return b.toString();
    }

    /** Debezium's PostgreSQL source position: {@code lsn}, and {@code xmin} when set; null without an LSN. */
    static Map<String, String> position(Event e) {
        Object lsn = e.source("lsn");
        if (lsn == null) return null;
        Map<String, String> p = new LinkedHashMap<>();
        p.put("lsn", lsn.toString());
        Object xmin = e.source("xmin");
        if (xmin != null) p.put("xmin", xmin.toString());
        return p;
    }

    long millisSinceLast(long now) {
        long last = lastEventMillis.get();
        return last == -1 ? -1 : now - last;
    }

    void reset() {
        total.set(0);
        creates.set(0);
        updates.set(0);
        deletes.set(0);
        lastEventMillis.set(-1);
        lastEvent = null;
    }
}
