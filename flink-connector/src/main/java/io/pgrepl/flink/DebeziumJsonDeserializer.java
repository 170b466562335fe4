package io.pgrepl.flink;

import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.ColumnKind;
import io.pgrepl.codec.pgoutput.record.Tuple;
import io.pgrepl.codec.value.PgType;
import java.math.BigDecimal;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetTime;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.List;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.util.Collector;

/**
 * Changes as Debezium's PostgreSQL change event value in JSON ({@code before}, {@code after},
 * {@code source}, {@code op}, {@code ts_ms}, {@code transaction}), as a JSON converter without
 * schemas writes it, for jobs that already parse Debezium's events. The {@code source} block has
 * the fields pgrepl's Kafka connector writes ({@code version} {@code pgrepl-...},
 * {@code connector} {@code postgresql}, {@code name}, {@code ts_ms}, {@code snapshot}, {@code db},
 * {@code schema}, {@code table}, {@code txId}, {@code lsn}); {@code op} is {@code r}, {@code c},
 * {@code u} or {@code d}; an update that changes the key is, as in Debezium, a {@code d} of the old
 * key followed by a {@code c} of the new one.
 *
 * <p>Values follow Debezium's default encodings where JSON can carry them without a schema: date
 * as days since the epoch, time as microseconds of the day, timestamp as microseconds since the
 * epoch (io.debezium.time.MicroTimestamp, whatever the precision), timestamptz and timetz as
 * ISO-8601 strings in UTC, bytea as base64, arrays as JSON arrays; numeric as its exact decimal
 * string, as Debezium's {@code decimal.handling.mode=string} does (a schemaless converter would
 * otherwise write the unscaled bytes, which a reader cannot scale back). Columns of an old key
 * that the server did not send are null.
 */
public final class DebeziumJsonDeserializer implements PgreplDeserializer<String> {
    private static final long serialVersionUID = 1L;
    private static final String VERSION = "pgrepl-" + versionOf();

    private final String serverName;
    private final String database;

    /**
     * A deserializer.
     *
     * @param serverName {@code source.name}, Debezium's logical server name (its topic prefix)
     * @param database   {@code source.db}
     */
    public DebeziumJsonDeserializer(String serverName, String database) {
        this.serverName = serverName;
        this.database = database;
    }

    @Override
    public void deserialize(PgChange c, Collector<String> out) {
        if (c.op() == PgChange.Op.UPDATE && c.keyChanged()) {
            // As Debezium: an update of the key is a delete of the old key, then a create of the new one.
            out.collect(event(c, "d", c.before(), null));
            out.collect(event(c, "c", null, c.after()));
            return;
        }
        String op = switch (c.op()) {
            case READ -> "r";
            case INSERT -> "c";
            case UPDATE -> "u";
            case DELETE -> "d";
        };
        out.collect(event(c, op, c.before(), c.after()));
    }

    private String event(PgChange c, String op, Tuple before, Tuple after) {
        StringBuilder b = new StringBuilder(256);
        b.append("{\"before\":");
        row(b, before);
        b.append(",\"after\":");
        row(b, after);
        b.append(",\"source\":{\"version\":");
        string(b, VERSION);
        b.append(",\"connector\":\"postgresql\",\"name\":");
        string(b, serverName);
        long commitMs = c.snapshot() ? System.currentTimeMillis() : c.commitTime().toEpochMilli();
        b.append(",\"ts_ms\":").append(commitMs).append(",\"snapshot\":\"").append(c.snapshot() ? "true" : "false").append("\",\"db\":");
        string(b, database);
        b.append(",\"sequence\":null,\"schema\":");
        string(b, c.table().schema());
        b.append(",\"table\":");
        string(b, c.table().table());
        if (c.snapshot()) {
            b.append(",\"txId\":null,\"lsn\":null");
        } else {
            b.append(",\"txId\":").append(c.xid()).append(",\"lsn\":").append(Long.toUnsignedString(c.commitLsn()));
        }
        b.append(",\"xmin\":null},\"op\":\"").append(op).append("\",\"ts_ms\":").append(System.currentTimeMillis())
                .append(",\"transaction\":null}");
        return b.toString();
    }

    private static void row(StringBuilder b, Tuple t) {
        if (t == null) {
            b.append("null");
            return;
        }
        b.append('{');
        for (int i = 0; i < t.size(); i++) {
            if (i > 0) b.append(',');
            string(b, t.name(i));
            b.append(':');
            if (!t.hasValue(i) || t.kind(i) == ColumnKind.ABSENT) {
                b.append("null");
            } else if (t.typeOid(i) == PgType.NUMERIC) {
                string(b, t.text(i)); // exact, NaN and Infinity included
            } else {
                value(b, t.decode(i));
            }
        }
        b.append('}');
    }

    private static void value(StringBuilder b, Object v) {
        if (v == null) {
            b.append("null");
        } else if (v instanceof Boolean || v instanceof Short || v instanceof Integer || v instanceof Long) {
            b.append(v);
        } else if (v instanceof Float f) {
            if (Float.isFinite(f)) b.append(f);
            else string(b, f.toString());
        } else if (v instanceof Double d) {
            if (Double.isFinite(d)) b.append(d);
            else string(b, d.toString());
        } else if (v instanceof BigDecimal bd) {
            string(b, bd.toPlainString());
        } else if (v instanceof LocalDate d) {
            b.append(d.toEpochDay());
        } else if (v instanceof LocalTime t) {
            b.append(t.toNanoOfDay() / 1000);
        } else if (v instanceof LocalDateTime ts) {
            Instant i = ts.toInstant(ZoneOffset.UTC);
            b.append(Math.addExact(Math.multiplyExact(i.getEpochSecond(), 1_000_000L), i.getNano() / 1000));
        } else if (v instanceof Instant i) {
            string(b, i.toString());
        } else if (v instanceof OffsetTime ot) {
            string(b, ot.withOffsetSameInstant(ZoneOffset.UTC).toString());
        } else if (v instanceof byte[] bytes) {
            string(b, Base64.getEncoder().encodeToString(bytes));
        } else if (v instanceof List<?> l) {
            b.append('[');
            for (int i = 0; i < l.size(); i++) {
                if (i > 0) b.append(',');
                value(b, l.get(i));
            }
            b.append(']');
        } else if (v instanceof Lsn lsn) {
            b.append(Long.toUnsignedString(lsn.value()));
        } else {
            string(b, v.toString());
        }
    }

    private static void string(StringBuilder b, String s) {
        if (s == null) {
            b.append("null");
            return;
        }
        b.append('"');
        int from = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= 0x20 && c != '"' && c != '\\') continue;
            b.append(s, from, i); // the run before it needs no escape
            from = i + 1;
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> b.append(String.format("\\u%04x", (int) c));
            }
        }
        b.append(s, from, s.length()).append('"');
    }

    private static String versionOf() {
        String v = DebeziumJsonDeserializer.class.getPackage().getImplementationVersion();
        return v != null ? v : "0.1.0-SNAPSHOT";
    }

    @Override
    public TypeInformation<String> getProducedType() {
        return TypeInformation.of(String.class);
    }
}
