package io.pgrepl.kafka.connect.snapshot;

import io.pgrepl.client.snapshot.incremental.TableProgress;
import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.kafka.connect.offsets.Position;
import io.pgrepl.kafka.connect.offsets.SignalOffsets;
import io.pgrepl.kafka.connect.records.ChangeRecords;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builder thread: turns the incremental stream's items into what the builder hands over. A
 * transaction's records carry the state as of its commit; a chunk's reads (and notifications) carry
 * the position of everything built before them and the state before the chunk, except the last,
 * which carries the state after it. So whichever of them Connect last committed, a restart resumes
 * the stream after that position and re-reads at most the chunk that was not wholly in Kafka.
 */
public final class IncrementalReads {
    /** The engine's state when no snapshot runs: nothing to store. */
    public static final String EMPTY = "pgrepl-inc 1";

    /**
     * The task's logger, by name: these lines belong with the task's for whoever filters its log,
     * and a class reference would make the snapshot package and the task depend on each other.
     */
    private static final Logger log = LoggerFactory.getLogger("io.pgrepl.kafka.connect.PgreplSourceTask");

    /** A table's incremental snapshot failed under {@code incremental.snapshot.failure.handling.mode=fail}: the task fails. */
    public static final class TableFailed extends ConnectException {
        TableFailed(String message) {
            super(message);
        }
    }

    private final ChangeRecords records;
    private final SnapshotNotifications notifications;
    private final NotifiedKeys keys;
    private final String slot;
    private final IncrementalSettings.FailureHandling failureHandling;
    private String state;
    /** A failure to hand to the task after the records of the chunk that reported it. */
    private TableFailed failed;
    /** Told each table progress (and whether no table is left after it), or null. */
    private java.util.function.BiConsumer<TableProgress, Boolean> progress;

    public IncrementalReads(ChangeRecords records, SnapshotNotifications notifications, NotifiedKeys keys, String resumed, String slot,
                     IncrementalSettings.FailureHandling failureHandling) {
        this.records = records;
        this.notifications = notifications;
        this.keys = keys;
        this.state = resumed;
        this.slot = slot;
        this.failureHandling = failureHandling;
    }

    /** Tells {@code listener} each table's progress, on the builder thread (the JMX snapshot bean). */
    public void onProgress(java.util.function.BiConsumer<TableProgress, Boolean> listener) {
        progress = listener;
    }

    /** {@return the failure of a table to fail the task with, once (null: none)} */
    public TableFailed takeFailure() {
        TableFailed f = failed;
        failed = null;
        return f;
    }

    /** The state as of the last item built (null: none to store). */
    public String state() {
        return state;
    }

    /** A transaction's item: its records' offsets carry {@code itemState}. */
    public void transaction(String itemState) {
        state = stored(itemState);
        records.incrementalState(state);
    }

    /** A chunk's reads and notifications, handed over after everything up to {@code at}. */
    public List<SourceRecord> chunk(IncrementalStream.Reads item, Position at) {
        List<SourceRecord> out = new ArrayList<>(item.rows().size() + 2);
        Map<String, Object> before = Position.incrementalRead(at, state);
        for (IncrementalStream.Read r : item.rows()) records.incrementalRead(r.relation(), r.row(), item.position(), before, out::add);
        TableProgress p = item.progress();
        if (p != null && p.status() == TableProgress.Status.FAILED) failed(p);
        if (p != null && progress != null) progress.accept(p, EMPTY.equals(SignalOffsets.engineState(item.state())));
        if (notifications != null && p != null) {
            IncrementalStream.Read last = item.rows().isEmpty() ? null : item.rows().get(item.rows().size() - 1);
            notifications.accept(p, last == null ? null : last.relation(), last == null ? null : keyText(last, keys),
                    EMPTY.equals(SignalOffsets.engineState(item.state())), before, out::add);
        }
        state = stored(item.state());
        records.incrementalState(state);
        if (!out.isEmpty()) {
            int last = out.size() - 1;
            out.set(last, withOffset(out.get(last), Position.incrementalRead(at, state)));
        }
        return out;
    }

    /** A table ended FAILED: never silently (see {@link IncrementalSettings#FAILURE_HANDLING}). */
    private void failed(TableProgress p) {
        if (failureHandling == IncrementalSettings.FailureHandling.FAIL) {
            log.warn("slot {}: incremental snapshot of {} failed: {}; the task fails ({}=fail)", slot, p.table(), p.error(),
                    IncrementalSettings.FAILURE_HANDLING);
            failed = new TableFailed("incremental snapshot of " + p.table() + " failed: " + p.error() + " ("
                    + IncrementalSettings.FAILURE_HANDLING + "=fail; the table is not in the stored progress, so a restart"
                    + " streams on without it: fix the cause and signal its snapshot again)");
        } else {
            log.warn("slot {}: incremental snapshot of {} failed: {}; streaming goes on without it (signal its snapshot again"
                    + " once the cause is fixed, or set {}=fail to fail the task instead)", slot, p.table(), p.error(),
                    IncrementalSettings.FAILURE_HANDLING);
        }
    }

    /** A read's key as Debezium prints one in notifications: column texts, as the records show them, joined by commas. */
    public String keyText(IncrementalStream.Read r, NotifiedKeys keys) {
        RelationInfo rel = r.relation();
        int[] columns = keyColumns(records, rel);
        StringBuilder b = new StringBuilder();
        for (int k = 0; k < columns.length; k++) {
            int column = columns[k];
            String v = keys.text(rel, column, r.row().newTuple().text(column));
            b.append(k == 0 ? "" : ",").append(v == null ? MaximumKeys.NONE : v);
        }
        return b.toString();
    }

    /** The columns the table's records are keyed by; the relation's replica identity flags before its first record. */
    public static int[] keyColumns(ChangeRecords records, RelationInfo rel) {
        int[] k = records.keyColumns(rel.oid());
        if (k != null) return k;
        k = new int[rel.keyColumnCount()];
        for (int i = 0; i < k.length; i++) k[i] = rel.keyColumnIndex(i);
        return k;
    }

    private static SourceRecord withOffset(SourceRecord r, Map<String, ?> offset) {
        return new SourceRecord(r.sourcePartition(), offset, r.topic(), r.kafkaPartition(), r.keySchema(), r.key(),
                r.valueSchema(), r.value(), r.timestamp());
    }

    private static String stored(String s) {
        return s == null || s.equals(EMPTY) ? null : s;
    }
}
