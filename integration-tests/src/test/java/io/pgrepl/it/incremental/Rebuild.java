package io.pgrepl.it.incremental;

import io.pgrepl.client.snapshot.incremental.SnapshotReadHandler;
import io.pgrepl.client.snapshot.incremental.TableProgress;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.codec.pgoutput.CommitMessage;
import io.pgrepl.codec.pgoutput.DeleteMessage;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.codec.pgoutput.TruncateMessage;
import io.pgrepl.codec.pgoutput.TupleView;
import io.pgrepl.codec.pgoutput.UpdateMessage;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Rebuilds one table {@code (id, v, n)} from a stream's changes and an incremental snapshot's
 * reads, applied in the order they arrive, and checks the ordering promise on the way: a read of
 * a key whose change was delivered before must equal what those changes left (a stale read would
 * overwrite a newer state). Callbacks run on the stream's event loop; the test reads under the lock.
 */
class Rebuild implements SnapshotReadHandler {
    private final java.util.List<String> tables;
    final Map<String, String> rows = new HashMap<>();
    private final Set<String> changed = new HashSet<>();
    private boolean truncated;
    final List<String> violations = new ArrayList<>();
    long reads;
    long changes;
    long truncates;
    /** Reads delivered while the chunk position of the reads was before the truncate. */
    long readsBeforeTruncate;
    volatile int lastReadKey;
    volatile boolean sentinelSeen;
    final Map<String, TableProgress> progress = new ConcurrentHashMap<>();
    final List<TableProgress> progressEvents = java.util.Collections.synchronizedList(new ArrayList<>());
    volatile LogicalReplicationStream stream;
    volatile long lastCommitEnd;

    /** Rebuilds these tables (unqualified names); keys are kept as {@code table:id}, except for a single table. */
    Rebuild(String... tables) {
        this.tables = java.util.List.of(tables);
    }

    private boolean ours(RelationInfo r) {
        return tables.contains(r.name());
    }

    private String key(RelationInfo r, String id) {
        return tables.size() == 1 ? id : r.name() + ":" + id;
    }

    private static String value(TupleView t) {
        return (t.isNull(1) ? "\\N" : t.text(1)) + "|" + (t.isNull(2) ? "\\N" : t.text(2));
    }

    @Override
    public void onStarted(LogicalReplicationStream s) {
        stream = s;
    }

    /** Changes of streamed (in-progress) transactions, applied at their Stream Commit, dropped at Stream Abort. */
    private final Map<Long, List<Runnable>> streamed = new HashMap<>();
    private long blockXid = -1;
    long streamedCommits;

    private void apply(io.pgrepl.codec.pgoutput.StreamableMessage m, Runnable op) {
        if (m.hasXid()) streamed.computeIfAbsent(blockXid, x -> new ArrayList<>()).add(op);
        else if (preparingXid >= 0) prepared.computeIfAbsent(preparingXid, x -> new ArrayList<>()).add(op);
        else op.run();
    }

    /**
     * Changes of prepared transactions (two_phase), applied at COMMIT PREPARED, dropped at ROLLBACK
     * PREPARED; kept across streams and engines as an application keeps them durably.
     */
    private final Map<Long, List<Runnable>> prepared = new HashMap<>();
    private long preparingXid = -1;
    volatile long prepares;
    volatile long commitsPrepared;

    @Override
    public synchronized void onBeginPrepare(io.pgrepl.codec.pgoutput.BeginPrepareMessage m) {
        preparingXid = m.xid();
        prepared.remove(m.xid()); // sent again (not confirmed before a reconnect): the same changes come again
    }

    @Override
    public synchronized void onPrepare(io.pgrepl.codec.pgoutput.PrepareMessage m) {
        preparingXid = -1;
        prepares++;
    }

    @Override
    public synchronized void onCommitPrepared(io.pgrepl.codec.pgoutput.CommitPreparedMessage m) {
        List<Runnable> ops = prepared.remove(m.xid());
        if (ops != null) ops.forEach(Runnable::run);
        commitsPrepared++;
    }

    @Override
    public synchronized void onRollbackPrepared(io.pgrepl.codec.pgoutput.RollbackPreparedMessage m) {
        prepared.remove(m.xid());
    }

    @Override
    public synchronized void onInsert(InsertMessage m) {
        if (!ours(m.relation())) return;
        String id = key(m.relation(), m.newTuple().text(0));
        boolean sentinel = m.newTuple().text(0).equals("-1");
        String v = value(m.newTuple());
        apply(m, () -> {
            if (sentinel) sentinelSeen = true;
            rows.put(id, v);
            changed.add(id);
            changes++;
        });
    }

    @Override
    public synchronized void onUpdate(UpdateMessage m) {
        if (!ours(m.relation())) return;
        String id = key(m.relation(), m.newTuple().text(0));
        String old = m.hasOldTuple() ? key(m.relation(), m.oldTuple().text(0)) : null;
        String v = value(m.newTuple());
        apply(m, () -> {
            if (old != null && !old.equals(id)) {
                rows.remove(old);
                changed.add(old);
            }
            rows.put(id, v);
            changed.add(id);
            changes++;
        });
    }

    @Override
    public synchronized void onDelete(DeleteMessage m) {
        if (!ours(m.relation())) return;
        String id = key(m.relation(), m.oldTuple().text(0));
        apply(m, () -> {
            rows.remove(id);
            changed.add(id);
            changes++;
        });
    }

    @Override
    public synchronized void onStreamStart(io.pgrepl.codec.pgoutput.StreamStartMessage m) {
        blockXid = m.xid();
        streamBlocks++;
    }

    /** Streamed blocks started (of in-progress transactions). */
    volatile long streamBlocks;

    @Override
    public synchronized void onStreamCommit(io.pgrepl.codec.pgoutput.StreamCommitMessage m) {
        List<Runnable> ops = streamed.remove(m.xid());
        if (ops != null) {
            ops.forEach(Runnable::run);
            streamedCommits++;
        }
    }

    @Override
    public synchronized void onStreamAbort(io.pgrepl.codec.pgoutput.StreamAbortMessage m) {
        if (m.xid() == m.subXid()) streamed.remove(m.xid());
    }

    @Override
    public synchronized void onTruncate(TruncateMessage m) {
        for (int i = 0; i < m.relationCount(); i++) {
            if (ours(m.relation(i))) {
                String prefix = m.relation(i).name() + ":";
                if (tables.size() == 1) rows.clear();
                else rows.keySet().removeIf(k -> k.startsWith(prefix));
                truncated = true;
                truncates++;
                readsBeforeTruncate = reads;
            }
        }
    }

    /** An acknowledged position and the snapshot state stored with it, as an application would keep them. */
    record Checkpoint(long lsn, String state) {}

    /** When set, every commit is acknowledged here and stored with the engine's state. */
    volatile io.pgrepl.client.snapshot.incremental.IncrementalSnapshots checkpointing;
    volatile Checkpoint checkpoint;
    volatile int firstReadKey = -1;

    @Override
    public void onCommit(CommitMessage m) {
        lastCommitEnd = m.endLsn();
        io.pgrepl.client.snapshot.incremental.IncrementalSnapshots e = checkpointing;
        if (e != null) {
            checkpoint = new Checkpoint(m.endLsn(), e.state());
            stream.acknowledge(m.endLsn());
        }
    }

    @Override
    public synchronized void onSnapshotRead(TupleView row, long position) {
        if (!ours(row.relation())) return;
        String id = key(row.relation(), row.text(0));
        String v = value(row);
        if (truncated || changed.contains(id)) {
            String current = rows.get(id);
            if (!v.equals(current) && violations.size() < 20) {
                violations.add("read of " + id + " = " + v + " after changes left " + current);
            }
        }
        rows.put(id, v);
        reads++;
        if (row.relation().name().equals(tables.get(0))) lastReadKey = Integer.parseInt(row.text(0));
        if (firstReadKey < 0) firstReadKey = lastReadKey;
    }

    @Override
    public void onSnapshotProgress(TableProgress p) {
        progress.put(p.table(), p);
        progressEvents.add(p);
    }

    synchronized Map<String, String> rowsCopy() {
        return new HashMap<>(rows);
    }

    synchronized long reads() {
        return reads;
    }

    boolean status(String t, TableProgress.Status s) {
        TableProgress p = progress.get(t);
        return p != null && p.status() == s;
    }
}
