package io.pgrepl.kafka.connect.records;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.QueryResult;
import io.pgrepl.client.replication.Identifiers;
import io.pgrepl.codec.pgoutput.ColumnInfo;
import io.pgrepl.codec.pgoutput.ColumnKind;
import io.pgrepl.codec.pgoutput.record.ColumnValue;
import io.pgrepl.codec.pgoutput.record.Tuple;
import io.pgrepl.kafka.connect.PgreplConnectorConfig;
import io.pgrepl.kafka.connect.ReplicationSetup;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * reselect.unavailable.values: fills the unchanged TOASTed columns of a poll() batch's rows (the
 * placeholder otherwise) with their values read from the table by replica identity key, one query
 * per table per batch on a plain connection of its own. It runs on the task thread in poll(), never
 * on the stream's event loop or the builder thread: a slow query then holds back only the batch
 * it is for, while the stream keeps being read ahead into the task's
 * handover queue (named in words only: records does not depend on the task's classes).
 *
 * <p>The values are the rows' current ones, which can be newer than the change. A failed query
 * costs that batch its values, not its records: they go out, in order, with the placeholder, and
 * the failure is logged. The task is not failed for it: the values are a convenience the records
 * are correct without (they are what Debezium sends without its post-processor), and a database
 * that is gone for good fails the stream anyway.
 */
public final class Reselect implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Reselect.class);
    /** Longest wait for a connection or a query (also the server's statement_timeout for it). */
    public static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final PgreplConnectorConfig config;
    /** Task thread, but closed by stop() too. */
    private volatile PgConnection conn;
    /** After a lost connection, no new one before this (nanoTime): a dead server would cost every batch a timeout. */
    private long retryAfter;
    private boolean retryWait;
    private volatile boolean closed;

    public Reselect(PgreplConnectorConfig config) {
        this.config = config;
    }

    /**
     * A row with unchanged TOAST values and what their re-select needs: its table's schema, the
     * text of its key (as pgoutput sent it, which is what a literal of the column reads back as)
     * and which columns lack a value. Built on the builder thread, completed on the task thread.
     */
    public static final class Row extends CheckedStruct {
        final TableSchema table;
        final List<String> key;
        final int[] missing;
        /** Task thread only: filled, or given up on. */
        boolean done;

        private Row(TableSchema table, List<String> key, int[] missing) {
            super(table.rowSchema);
            this.table = table;
            this.key = key;
            this.missing = missing;
        }
    }

    /**
     * The struct for a row of {@code tuple}: a {@link Row} when it has unchanged TOAST values that
     * {@code fallback} (the old tuple) does not hold and its table has a key, else a plain one.
     */
    public static Struct row(TableSchema table, Tuple tuple, Tuple fallback) {
        int n = Math.min(tuple.size(), table.columns.size());
        int[] missing = null;
        int count = 0;
        for (int i = 0; i < n; i++) {
            if (tuple.kind(i) != ColumnKind.UNCHANGED_TOAST) continue;
            if (table.rowSchema.field(table.columns.get(i).name()) == null) continue; // left out by the column settings
            if (fallback != null && i < fallback.size() && fallback.hasValue(i)) continue;
            if (missing == null) missing = new int[n];
            missing[count++] = i;
        }
        if (missing == null || table.keyColumns.length == 0) return new CheckedStruct(table.rowSchema);
        List<String> key = new ArrayList<>(table.keyColumns.length);
        for (int k : table.keyColumns) {
            String text = k < tuple.size() ? tuple.text(k) : null;
            if (text == null && fallback != null && k < fallback.size()) text = fallback.text(k);
            if (text == null) return new CheckedStruct(table.rowSchema); // an unchanged TOASTed key: nothing to look it up by
            key.add(text);
        }
        return new Row(table, key, Arrays.copyOf(missing, count));
    }

    /** Fills what it can in {@code records}' rows, in place; records are neither added, removed nor moved. */
    public void fill(List<SourceRecord> records) {
        if (records == null) return;
        Map<TableSchema, List<Row>> byTable = new LinkedHashMap<>(); // TableSchema has identity equality
        for (SourceRecord r : records) {
            if (!(r.value() instanceof Struct v) || v.schema().field("after") == null) continue;
            if (v.get("after") instanceof Row row && !row.done) byTable.computeIfAbsent(row.table, t -> new ArrayList<>()).add(row);
        }
        for (Map.Entry<TableSchema, List<Row>> e : byTable.entrySet()) {
            String table = e.getKey().relation.namespace() + "." + e.getKey().relation.name();
            try {
                fill(connection(), e.getKey(), e.getValue());
            } catch (RuntimeException failure) {
                if (closed) return;
                log.warn("reselect.unavailable.values: reading {} row(s) of {} failed; their unchanged TOASTed columns"
                        + " keep the placeholder: {}", e.getValue().size(), table, ReplicationSetup.safeMessage(failure, config));
                closeConnection(); // a query the wait gave up on may still run there: the next batch starts afresh
                if (Thread.currentThread().isInterrupted()) return;
            } finally {
                for (Row row : e.getValue()) row.done = true;
            }
        }
    }

    private void fill(PgConnection c, TableSchema t, List<Row> rows) {
        List<ColumnInfo> columns = t.relation.columns();
        BitSet wanted = new BitSet();
        Set<List<String>> keys = new LinkedHashSet<>();
        for (Row r : rows) {
            for (int m : r.missing) wanted.set(m);
            keys.add(r.key);
        }
        StringBuilder sql = new StringBuilder("SELECT ");
        StringBuilder keyList = new StringBuilder();
        for (int k : t.keyColumns) {
            String name = Identifiers.quoteIdentifier(columns.get(k).name());
            sql.append(name).append(", ");
            keyList.append(keyList.length() == 0 ? "" : ", ").append(name);
        }
        int[] at = new int[columns.size()]; // a wanted column's place in the result
        int next = t.keyColumns.length;
        for (int m = wanted.nextSetBit(0); m >= 0; m = wanted.nextSetBit(m + 1)) {
            sql.append(next == t.keyColumns.length ? "" : ", ").append(Identifiers.quoteIdentifier(columns.get(m).name()));
            at[m] = next++;
        }
        sql.append(" FROM ").append(Identifiers.quoteIdentifier(t.relation.namespace())).append('.')
                .append(Identifiers.quoteIdentifier(t.relation.name())).append(" WHERE (").append(keyList).append(") IN (");
        boolean first = true;
        for (List<String> key : keys) {
            sql.append(first ? "(" : ", (");
            first = false;
            for (int j = 0; j < key.size(); j++) sql.append(j == 0 ? "" : ", ").append(Identifiers.quoteLiteral(key.get(j)));
            sql.append(')');
        }
        sql.append(')');
        QueryResult result = ReplicationSetup.await(c.query(sql.toString()), config,
                "re-selecting unchanged TOASTed values of " + t.relation.namespace() + "." + t.relation.name(), TIMEOUT);
        Map<List<String>, io.pgrepl.client.Row> found = new HashMap<>();
        for (io.pgrepl.client.Row r : result.rows()) {
            List<String> key = new ArrayList<>(t.keyColumns.length);
            for (int j = 0; j < t.keyColumns.length; j++) key.add(r.get(j));
            found.put(key, r);
        }
        // Every value converted before any is put: a batch is filled whole or not at all.
        Object[][] values = new Object[rows.size()][];
        for (int i = 0; i < rows.size(); i++) {
            Row row = rows.get(i);
            io.pgrepl.client.Row current = found.get(row.key);
            if (current == null) continue; // gone, or its key changed since: the placeholder stays
            values[i] = new Object[row.missing.length];
            for (int j = 0; j < row.missing.length; j++) values[i][j] = value(t, row.missing[j], current.bytes(at[row.missing[j]]));
        }
        for (int i = 0; i < rows.size(); i++) {
            if (values[i] == null) continue;
            Row row = rows.get(i);
            for (int j = 0; j < row.missing.length; j++) row.put(t.columns.get(row.missing[j]).name(), values[i][j]);
        }
    }

    /** A selected value converted as the stream's text value of the column is: the same decode and converter. */
    private static Object value(TableSchema t, int column, byte[] text) {
        ColumnInfo ci = t.relation.columns().get(column);
        ColumnValue v = text == null ? new ColumnValue(ci.name(), ci.typeOid(), ColumnKind.NULL, null)
                : new ColumnValue(ci.name(), ci.typeOid(), ColumnKind.TEXT, text);
        return RelationTable.convert(t.columns.get(column), new Tuple(List.of(v)), 0);
    }

    private PgConnection connection() {
        PgConnection c = conn;
        if (c != null && c.isOpen()) return c;
        closeConnection();
        if (retryWait && System.nanoTime() - retryAfter < 0) {
            throw new IllegalStateException("the last attempt to connect failed less than " + TIMEOUT.toSeconds() + " s ago");
        }
        retryWait = true;
        retryAfter = System.nanoTime() + TIMEOUT.toNanos();
        ConnectionConfig plain = config.dataConnectionConfig();
        c = ReplicationSetup.await(PgConnection.connect(plain), config, "connecting for reselect.unavailable.values", TIMEOUT);
        conn = c;
        if (closed) {
            closeConnection();
            throw new IllegalStateException("stopped");
        }
        // The server gives up on a query the task no longer waits for.
        ReplicationSetup.await(c.query("SET statement_timeout = " + TIMEOUT.toMillis()), config, "setting statement_timeout", TIMEOUT);
        retryWait = false;
        return c;
    }

    private void closeConnection() {
        PgConnection c = conn;
        conn = null;
        if (c != null) c.close();
    }

    /** From stop(), possibly while a poll() is in {@link #fill}: its query fails, and is not logged. */
    @Override
    public void close() {
        closed = true;
        PgConnection c = conn;
        if (c != null) c.close();
    }
}
