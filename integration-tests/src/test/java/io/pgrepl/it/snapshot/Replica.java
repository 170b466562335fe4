package io.pgrepl.it.snapshot;

import io.pgrepl.client.snapshot.SnapshotHandler;
import io.pgrepl.client.stream.LogicalStreamHandler;
import io.pgrepl.codec.pgoutput.CommitMessage;
import io.pgrepl.codec.pgoutput.DeleteMessage;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.codec.pgoutput.TupleView;
import io.pgrepl.codec.pgoutput.UpdateMessage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A target built the way a CDC consumer builds one: snapshot reads, then streamed changes applied
 * in order. Rows are keyed by the hex of their {@code id} value; values are kept as hex of the
 * bytes received (null for NULL). Tables are keyed by {@code schema.table} of the relation.
 */
class Replica implements SnapshotHandler, LogicalStreamHandler {
    final Map<String, Map<String, List<String>>> tables = new ConcurrentHashMap<>();
    final Map<String, List<String>> columns = new ConcurrentHashMap<>();
    final AtomicLong reads = new AtomicLong();
    final AtomicLong changes = new AtomicLong();
    volatile long readLsn = -1;
    volatile boolean changeBeforeSnapshotEnd;
    volatile boolean snapshotEnded;
    volatile long lastCommitEnd;
    volatile String sentinel;

    private static String name(RelationInfo r) {
        return r.schema() + "." + r.name();
    }

    private Map<String, List<String>> table(RelationInfo r) {
        List<String> cols = new ArrayList<>();
        for (int i = 0; i < r.columnCount(); i++) cols.add(r.column(i).name());
        columns.put(name(r), cols);
        return tables.computeIfAbsent(name(r), k -> new HashMap<>());
    }

    private static String key(TupleView t) {
        for (int i = 0; i < t.columnCount(); i++) {
            if (t.column(i).name().equals("id")) return SnapshotSupport.hex(t.bytes(i));
        }
        throw new AssertionError("no id column in " + t.relation());
    }

    private static List<String> values(TupleView t, List<String> previous) {
        List<String> out = new ArrayList<>(t.columnCount());
        for (int i = 0; i < t.columnCount(); i++) {
            if (t.isUnchangedToast(i)) {
                if (previous == null) throw new AssertionError("unchanged TOAST value for a row never seen");
                out.add(previous.get(i));
            } else {
                out.add(t.isNull(i) ? null : SnapshotSupport.hex(t.bytes(i)));
            }
        }
        return out;
    }

    // ---- snapshot

    @Override
    public void onStart(long consistentPoint, List<io.pgrepl.client.snapshot.SnapshotTable> list) {
        for (var t : list) table(t.relation());
    }

    @Override
    public void onRead(TupleView row, long consistentPoint) {
        readLsn = consistentPoint;
        List<String> old = table(row.relation()).put(key(row), values(row, null));
        if (old != null) throw new AssertionError("row read twice: " + name(row.relation()) + " " + key(row));
        reads.incrementAndGet();
    }

    @Override
    public void onEnd(io.pgrepl.client.snapshot.SnapshotResult result) {
        snapshotEnded = true;
    }

    // ---- stream

    @Override
    public void onInsert(InsertMessage m) {
        if (!snapshotEnded) changeBeforeSnapshotEnd = true;
        String k = key(m.newTuple());
        if (m.relation().name().equals("big") && k.equals(sentinel)) sentinelSeen = true;
        table(m.relation()).put(k, values(m.newTuple(), null));
        changes.incrementAndGet();
    }

    volatile boolean sentinelSeen;

    @Override
    public void onUpdate(UpdateMessage m) {
        Map<String, List<String>> t = table(m.relation());
        String newKey = key(m.newTuple());
        String oldKey = m.hasOldTuple() ? key(m.oldTuple()) : newKey;
        List<String> previous = t.remove(oldKey);
        t.put(newKey, values(m.newTuple(), previous));
        changes.incrementAndGet();
    }

    @Override
    public void onDelete(DeleteMessage m) {
        table(m.relation()).remove(key(m.oldTuple()));
        changes.incrementAndGet();
    }

    @Override
    public void onCommit(CommitMessage m) {
        lastCommitEnd = m.endLsn();
    }
}
