package io.pgrepl.client.snapshot.incremental;

import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.codec.pgoutput.TupleView;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where the stream is, as far as chunks care (event loop only): whether a transaction or a
 * streamed block is open, the last commit delivered, and which keys of the snapshotted tables
 * committed transactions changed (into each table's {@link TouchLog}).
 *
 * <p>Changes of a streamed (in-progress) or prepared transaction are held per transaction and
 * count only once it commits (Stream Commit, Commit Prepared), at its commit LSN and under its
 * top-level xid: one that aborts never made a chunk row stale. Until then the chunk's row stands;
 * the transaction commits after it in the stream, so a consumer applying transactions at their
 * commit applies it after the read.
 */
final class StreamWindow {
    /** A change of a transaction not yet committed: the table, the key (null: every key) and the (sub)xid that made it. */
    private record Pending(TableRun table, String key, long xid) {}

    private static final int RING = 1024;
    private final Map<Integer, TableRun> byOid = new HashMap<>();
    /** The last relation looked up, and its run (null: not snapshotted): a run of changes to one table boxes nothing. */
    private int lastOid;
    private TableRun lastRun;
    private boolean lastValid;
    private final Map<Long, List<Pending>> pending = new HashMap<>();
    /**
     * Top-level xids of transactions streamed in progress, and of prepared ones (delivered here, or
     * found prepared on the server when a table was planned), not committed or rolled back yet:
     * their changes so far went to no table tracked since (see {@link #trackingStarts}).
     */
    private final Set<Long> streamedOpen = new HashSet<>();
    private final Set<Long> preparedOpen = new HashSet<>();
    /** Of those, the ones whose PREPARE was delivered whole here (not only found on the server): their changes are held. */
    private final Set<Long> preparedHeld = new HashSet<>();
    /** The xids of the last RING committed transactions delivered (see {@link #recentlyDelivered}). */
    private final long[] ringXid = new long[RING];
    private int ringNext;
    private int ringSize;
    boolean txOpen;
    boolean blockOpen;
    private boolean preparing;
    /** The PREPARE being delivered was delivered whole before (an unconfirmed one, after a reconnect): its changes are held already. */
    private boolean resent;
    private long txXid;
    private long txCommitLsn;
    private long blockXid;
    long lastCommitLsn;

    void register(int oid, TableRun t) {
        byOid.put(oid, t);
        lastValid = false;
    }

    void unregister(int oid, TableRun t) {
        if (byOid.get(oid) == t) byOid.remove(oid);
        lastValid = false;
    }

    private TableRun lookup(int oid) {
        if (byOid.isEmpty()) return null;
        if (!lastValid || lastOid != oid) {
            lastOid = oid;
            lastRun = byOid.get(oid);
            lastValid = true;
        }
        return lastRun;
    }

    /**
     * A new connection: the server resends open transactions from their start, but not a PREPARE
     * at or before the confirmed position, only its COMMIT PREPARED later: the held changes of
     * prepared transactions stay (one whose PREPARE comes again is not held twice, see {@link
     * #beginPrepare}).
     */
    void reset() {
        txOpen = false;
        blockOpen = false;
        preparing = false;
        resent = false;
        pending.keySet().retainAll(preparedOpen);
        streamedOpen.clear();
    }

    boolean atBoundary() {
        return !txOpen && !blockOpen;
    }

    long txCommitLsn() {
        return txCommitLsn;
    }

    void begin(long xid, long finalLsn) {
        txOpen = true;
        txXid = xid;
        txCommitLsn = finalLsn;
    }

    void commit(long commitLsn) {
        txOpen = false;
        delivered(txXid, commitLsn);
    }

    void beginPrepare(long xid, long prepareLsn) {
        txOpen = true;
        preparing = true;
        resent = preparedHeld.contains(xid);
        txXid = xid;
        txCommitLsn = prepareLsn;
    }

    void prepared() {
        preparedOpen.add(txXid);
        preparedHeld.add(txXid);
        txOpen = false;
        preparing = false;
        resent = false;
    }

    /** Stream Prepare: a transaction streamed in progress is prepared now; after a reconnect only its COMMIT PREPARED comes. */
    void streamPrepared(long xid) {
        if (streamedOpen.remove(xid)) {
            preparedOpen.add(xid);
            preparedHeld.add(xid);
        }
    }

    void streamStart(long xid) {
        streamedOpen.add(xid);
        blockOpen = true;
        blockXid = xid;
    }

    void streamStop() {
        blockOpen = false;
    }

    /** Stream Commit or Commit Prepared: the held changes count now. */
    void committedLater(long xid, long commitLsn) {
        streamedOpen.remove(xid);
        preparedOpen.remove(xid);
        preparedHeld.remove(xid);
        List<Pending> held = pending.remove(xid);
        if (held != null) {
            for (Pending p : held) {
                if (p.table.status == TableProgress.Status.COMPLETED || p.table.status == TableProgress.Status.STOPPED) continue;
                if (p.key == null) p.table.touches.truncate(xid, commitLsn);
                else p.table.touches.touch(p.key, xid, commitLsn);
            }
        }
        delivered(xid, commitLsn);
    }

    /** Stream Abort (of the whole transaction, or one subtransaction) or Rollback Prepared. */
    void aborted(long xid, long subXid) {
        if (xid == subXid) {
            pending.remove(xid);
            streamedOpen.remove(xid);
            preparedOpen.remove(xid);
            preparedHeld.remove(xid);
            return;
        }
        List<Pending> held = pending.get(xid);
        if (held != null) held.removeIf(p -> p.xid == subXid);
    }

    private void delivered(long xid, long commitLsn) {
        lastCommitLsn = Lsn.max(lastCommitLsn, commitLsn);
        ringXid[ringNext] = xid;
        ringNext = (ringNext + 1) % RING;
        if (ringSize < RING) ringSize++;
    }

    /**
     * A change to a row: its old key (when the message carries one) and its new key are touched.
     *
     * @param streamedXid the change's xid when it came in a streamed block, else -1
     */
    void change(RelationInfo rel, TupleView oldTuple, TupleView newTuple, long streamedXid) {
        TableRun t = lookup(rel.oid());
        if (t == null) return;
        int[] idx = t.streamKeys(rel);
        if (oldTuple != null) touch(t, idx == null ? null : ChunkRows.key(oldTuple, idx), streamedXid);
        if (newTuple != null) {
            String k = idx == null ? null : ChunkRows.key(newTuple, idx);
            // An update whose key columns are unchanged TOAST keeps the old key: already touched.
            if (k != null || oldTuple == null) touch(t, k, streamedXid);
        }
    }

    void truncate(RelationInfo rel, long streamedXid) {
        TableRun t = lookup(rel.oid());
        if (t != null) touch(t, null, streamedXid);
    }

    private void touch(TableRun t, String key, long streamedXid) {
        if (streamedXid >= 0 || preparing) {
            if (resent && streamedXid < 0) return;
            long top = streamedXid >= 0 ? blockXid : txXid;
            pending.computeIfAbsent(top, x -> new ArrayList<>()).add(new Pending(t, key, streamedXid >= 0 ? streamedXid : txXid));
        } else if (key == null) {
            t.touches.truncate(txXid, txCommitLsn);
        } else {
            t.touches.touch(key, txXid, txCommitLsn);
        }
    }

    /**
     * The keys of {@code t} are tracked from now on. A transaction streamed in progress or prepared
     * before (or being prepared now) delivered changes that went untracked: when it commits it counts
     * as touching every key (the whole chunk is read again if its snapshot missed the transaction or
     * its low mark came first).
     *
     * <p>{@code serverPrepared} are the transactions prepared on the server when the table was
     * planned (null: not asked, the stream decodes no PREPARE): one prepared before this process
     * started, or before a restart resumed the snapshot, was never seen here, and the stream sends
     * only its COMMIT PREPARED. They count as prepared ones seen here, except those whose commit
     * was delivered since the server was asked.
     */
    void trackingStarts(TableRun t, long[] serverPrepared) {
        if (serverPrepared != null) {
            Set<Long> committed = new HashSet<>();
            for (long x : recentlyDelivered()) committed.add(x);
            for (long x : serverPrepared) if (!committed.contains(x)) preparedOpen.add(x);
        }
        Set<Long> undecided = new HashSet<>(streamedOpen);
        undecided.addAll(preparedOpen);
        if (txOpen && preparing) undecided.add(txXid);
        for (long xid : undecided) pending.computeIfAbsent(xid, x -> new ArrayList<>()).add(new Pending(t, null, xid));
    }

    /**
     * The transactions whose commits were delivered last, up to {@value #RING}: when a table's keys
     * start to be tracked, one of them may still be in the proc array (a commit waiting for a
     * synchronous standby, or in the microseconds before ProcArrayEndTransaction), unseen by a
     * chunk's snapshot though its changes were delivered before tracking (see {@link
     * TableRun#missesEarlierCommit}). A commit lingering while more than {@value #RING} others are
     * delivered before the table starts is not among them. The transaction being delivered counts:
     * it committed before its Begin came, and its changes so far were not tracked.
     */
    long[] recentlyDelivered() {
        boolean open = txOpen && !preparing;
        long[] xids = java.util.Arrays.copyOf(ringXid, ringSize + (open ? 1 : 0));
        if (open) xids[ringSize] = txXid;
        return xids;
    }
}
