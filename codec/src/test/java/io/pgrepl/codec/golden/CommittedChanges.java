package io.pgrepl.codec.golden;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Reassembles pgoutput's delivery into what test_decoding (without streaming or two-phase) shows:
 * committed transactions in commit order, each as BEGIN, changes, COMMIT; empty transactions
 * dropped (skip-empty-xacts). Streamed changes are held per top-level xid until Stream Commit;
 * Stream Abort drops the whole transaction (subxid = xid) or that subtransaction's changes;
 * rolling back a savepoint with streamed nested savepoints below it sends one Stream Abort per
 * aborted subtransaction (the workload's ROLLBACK TO b with child c shows it), so dropping by
 * subxid alone suffices. Prepared
 * transactions are held per gid until Commit Prepared, dropped at Rollback Prepared.
 */
final class CommittedChanges {
    private record Entry(long subxid, String change) {}

    private final List<String> out = new ArrayList<>();
    private List<String> txn;
    private long streamXid = -1;
    private final Map<Long, List<Entry>> streams = new HashMap<>();
    private final Map<String, List<String>> prepared = new HashMap<>();

    List<String> result() {
        if (txn != null) throw new AssertionError("transaction left open at the end of the capture");
        return out;
    }

    void begin() {
        if (txn != null) throw new AssertionError("Begin inside a transaction");
        txn = new ArrayList<>();
    }

    void commit() {
        emit(txn);
        txn = null;
    }

    /** {@code xid}: the message's xid prefix inside a stream block, else ignored. */
    void change(long xid, String change) {
        if (streamXid >= 0) {
            streams.computeIfAbsent(streamXid, k -> new ArrayList<>()).add(new Entry(xid, change));
        } else if (txn != null) {
            txn.add(change);
        } else {
            out.add(change); // a non-transactional message
        }
    }

    void streamStart(long xid) {
        streamXid = xid;
    }

    void streamStop() {
        streamXid = -1;
    }

    void streamCommit(long xid) {
        emit(strings(streams.remove(xid)));
    }

    void streamAbort(long xid, long subxid) {
        if (xid == subxid) {
            streams.remove(xid);
            return;
        }
        List<Entry> entries = streams.get(xid);
        if (entries == null) return;
        for (Iterator<Entry> it = entries.iterator(); it.hasNext(); ) if (it.next().subxid == subxid) it.remove();
    }

    void beginPrepare() {
        begin();
    }

    void prepare(String gid) {
        prepared.put(gid, txn);
        txn = null;
    }

    void streamPrepare(long xid, String gid) {
        prepared.put(gid, strings(streams.remove(xid)));
    }

    void commitPrepared(String gid) {
        List<String> changes = prepared.remove(gid);
        if (changes == null) throw new AssertionError("Commit Prepared of unknown gid " + gid);
        emit(changes);
    }

    void rollbackPrepared(String gid) {
        // A rollback of a transaction prepared before the capture started would be unknown; ours are all inside.
        if (prepared.remove(gid) == null) throw new AssertionError("Rollback Prepared of unknown gid " + gid);
    }

    private void emit(List<String> changes) {
        if (changes == null) throw new AssertionError("commit without begin");
        if (changes.isEmpty()) return;
        out.add(Changes.BEGIN);
        out.addAll(changes);
        out.add(Changes.COMMIT);
    }

    private static List<String> strings(List<Entry> entries) {
        List<String> l = new ArrayList<>();
        if (entries != null) for (Entry e : entries) l.add(e.change);
        return l;
    }
}
