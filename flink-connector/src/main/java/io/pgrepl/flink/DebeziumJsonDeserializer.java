package io.pgrepl.flink;

import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.ColumnKind;
import io.pgrepl.codec.pgoutput.record.Tuple;
import io.pgrepl.codec.value.PgType;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
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
    /** The reader's buffer, made on first use (a deserializer is copied to each reader). */
    private transient JsonOut out;
    /** The parts of the source block that are the same for every event (made on first use), and for the last table's. */
    private transient byte[] sourceStart;
    private transient byte[] dbBytes;
    private transient TableName table;
    private transient byte[] tableBytes;

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
        JsonOut b = out;
        if (b == null) out = b = new JsonOut();
        b.reset();
        b.ascii("{\"before\":");
        row(b, before);
        b.ascii(",\"after\":");
        row(b, after);
        if (sourceStart == null) {
            sourceStart = utf8(",\"source\":{\"version\":" + new String(JsonOut.bytes(VERSION), StandardCharsets.UTF_8)
                    + ",\"connector\":\"postgresql\",\"name\":" + new String(JsonOut.bytes(serverName), StandardCharsets.UTF_8)
                    + ",\"ts_ms\":");
            dbBytes = JsonOut.bytes(database);
        }
        if (!c.table().equals(table)) {
            tableBytes = utf8(",\"sequence\":null,\"schema\":" + new String(JsonOut.bytes(c.table().schema()), StandardCharsets.UTF_8)
                    + ",\"table\":" + new String(JsonOut.bytes(c.table().table()), StandardCharsets.UTF_8));
            table = c.table();
        }
        b.raw(sourceStart);
        long commitMs = c.snapshot() ? System.currentTimeMillis() : c.commitTime().toEpochMilli();
        b.num(commitMs).ascii(c.snapshot() ? ",\"snapshot\":\"true\",\"db\":" : ",\"snapshot\":\"false\",\"db\":")
                .raw(dbBytes).raw(tableBytes);
        if (c.snapshot()) {
            b.ascii(",\"txId\":null,\"lsn\":null");
        } else {
            b.ascii(",\"txId\":").num(c.xid()).ascii(",\"lsn\":").ascii(Long.toUnsignedString(c.commitLsn()));
        }
        b.ascii(",\"xmin\":null},\"op\":\"").ascii(op).ascii("\",\"ts_ms\":").num(System.currentTimeMillis())
                .ascii(",\"transaction\":null}");
        return b.string();
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void row(JsonOut b, Tuple t) {
        if (t == null) {
            b.ascii("null");
            return;
        }
        b.raw('{');
        for (int i = 0; i < t.size(); i++) {
            if (i > 0) b.raw(',');
            b.str(t.name(i)).raw(':');
            ColumnKind kind = t.kind(i);
            if (!kind.hasValue()) {
                b.ascii("null");
            } else if (t.typeOid(i) == PgType.NUMERIC) {
                b.str(t.array(), t.valueOffset(i), t.valueLength(i)); // exact, NaN and Infinity included
            } else if (kind != ColumnKind.TEXT || !text(b, t, i)) {
                value(b, t.decode(i));
            }
        }
        b.raw('}');
    }

    /**
     * Writes a value of the text format straight from the row's bytes where its JSON is that text
     * (integers, strings, json) or a plain rearrangement of it (bool, timestamptz of a UTC session),
     * as {@link #value} writes the decoded value; false, writing nothing, for the rest.
     */
    private static boolean text(JsonOut b, Tuple t, int i) {
        byte[] a = t.array();
        int at = t.valueOffset(i);
        int n = t.valueLength(i);
        switch (t.typeOid(i)) {
            case PgType.INT2, PgType.INT4, PgType.INT8 -> b.raw(a, at, n);
            case PgType.BOOL -> b.ascii(n == 1 && a[at] == 't' ? "true" : "false");
            case PgType.TEXT, PgType.VARCHAR, PgType.BPCHAR, PgType.NAME, PgType.JSON, PgType.JSONB -> b.str(a, at, n);
            case PgType.TIMESTAMPTZ -> {
                return b.utcTimestamp(a, at, n);
            }
            default -> {
                return false;
            }
        }
        return true;
    }

    private static void value(JsonOut b, Object v) {
        if (v == null) {
            b.ascii("null");
        } else if (v instanceof Boolean || v instanceof Short || v instanceof Integer || v instanceof Long) {
            b.ascii(v.toString());
        } else if (v instanceof Float f) {
            if (Float.isFinite(f)) b.ascii(f.toString());
            else b.str(f.toString());
        } else if (v instanceof Double d) {
            if (Double.isFinite(d)) b.ascii(d.toString());
            else b.str(d.toString());
        } else if (v instanceof BigDecimal bd) {
            b.str(bd.toPlainString());
        } else if (v instanceof LocalDate d) {
            b.num(d.toEpochDay());
        } else if (v instanceof LocalTime t) {
            b.num(t.toNanoOfDay() / 1000);
        } else if (v instanceof LocalDateTime ts) {
            Instant i = ts.toInstant(ZoneOffset.UTC);
            b.num(Math.addExact(Math.multiplyExact(i.getEpochSecond(), 1_000_000L), i.getNano() / 1000));
        } else if (v instanceof Instant i) {
            b.str(i.toString());
        } else if (v instanceof OffsetTime ot) {
            b.str(ot.withOffsetSameInstant(ZoneOffset.UTC).toString());
        } else if (v instanceof byte[] bytes) {
            b.str(Base64.getEncoder().encodeToString(bytes));
        } else if (v instanceof List<?> l) {
            b.raw('[');
            for (int i = 0; i < l.size(); i++) {
                if (i > 0) b.raw(',');
                value(b, l.get(i));
            }
            b.raw(']');
        } else if (v instanceof Lsn lsn) {
            b.ascii(Long.toUnsignedString(lsn.value()));
        } else {
            b.str(v.toString());
        }
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
