package io.pgrepl.client.snapshot.incremental;

import io.pgrepl.codec.pgoutput.ColumnInfo;
import io.pgrepl.codec.pgoutput.RelationInfo;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * One table's incremental snapshot (event loop only): its plan, its key ranges each walked by one
 * worker connection, the keys the stream touched meanwhile, and the counts for progress.
 */
final class TableRun {
    /** One key range and its worker. */
    static final class Cursor {
        final KeyRange range;
        /** The last key of the last chunk emitted: what a saved state resumes after. */
        List<String> lastKey;
        boolean done;
        /**
         * The chunks started and not emitted yet, in key (and start) order: the oldest may wait for
         * its high mark to come through the stream while the next one is read already.
         */
        final ArrayDeque<Chunk> open = new ArrayDeque<>(2);
        /** Consecutive transient failures. */
        int failures;
        /** Consecutive chunks read again because their snapshot missed a commit delivered before tracking. */
        int staleReads;
        /** No chunk starts before this {@link System#nanoTime()} (0: none held back); {@link #retryArmed}: a timer looks again then. */
        long retryAt;
        boolean retryArmed;
        CompletionStage<ChunkReader> reader;

        Cursor(KeyRange range, List<String> lastKey, boolean done) {
            this.range = range;
            this.lastKey = lastKey;
            this.done = done;
        }

        /** {@return where the next chunk starts: after the newest open chunk's rows, else after the last emitted key} */
        List<String> after() {
            Chunk newest = open.peekLast();
            if (newest != null && newest.read != null && newest.read.rows().count() > 0) return newest.read.rows().lastKey();
            return lastKey != null ? lastKey : range.after();
        }

        /**
         * Whether another chunk may start now: none is open, or every open one is read, full (a
         * short chunk ends the range) and fewer than {@code 1 + readAhead} are open.
         */
        boolean mayStart(int chunkSize, int readAhead) {
            if (done) return false;
            Chunk newest = open.peekLast();
            if (newest == null) return true;
            return open.size() <= readAhead && newest.read != null && newest.read.rows().count() >= chunkSize;
        }
    }

    final String name;
    final String condition;
    /** A column to walk by instead of the table's key, or null. */
    final String surrogateKey;
    /** Ranges from a saved state, used instead of planning new ones. */
    final List<ProgressState.Range> resumed;
    final TouchLog touches = new TouchLog();
    TableProgress.Status status = TableProgress.Status.PLANNING;
    KeyedTable plan;
    /** The table's oid, then its partitions' (the stream names a leaf's changes by the leaf unless published via the root). */
    int[] oids;
    /** Planning under way, or waiting to be tried again ({@link #planFailures}). */
    boolean planning;
    /** Planning attempts that failed with a transient error so far (see {@link Failures#isTransient}). */
    int planFailures;
    /** The published columns, as the reads' relation. */
    RelationInfo relation;
    /** All selected columns (published, then key-only ones), to decode the COPY. */
    RelationInfo selected;
    final List<Cursor> cursors = new ArrayList<>();
    /**
     * The xids of transactions delivered before the touches were tracked that some open or later
     * chunk's snapshot may not see yet (their changes are in no touch log): captured when tracking
     * starts, so the commits delivered since, however many, cannot push them out.
     */
    private long[] deliveredBefore = new long[0];
    /** The snapshot of the last chunk read (for pruning the touch log). */
    XidSnapshot lastSnapshot;
    boolean paused;
    long chunks;
    long rows;
    String error;
    /** The stream's shape of the table this run was planned again for (see {@link ReadShapes}), or null. */
    RelationInfo replannedFor;
    /** The stream relation the key positions below were computed for. */
    private RelationInfo keyedRelation;
    private int[] streamKeyIdx;

    TableRun(String name, String condition, String surrogateKey, List<ProgressState.Range> resumed) {
        this.name = name;
        this.condition = condition;
        this.surrogateKey = surrogateKey;
        this.resumed = resumed;
    }

    /** Sets the plan and builds the relations the reads are decoded with. */
    void planned(KeyedTable p, int relOid, int[] allOids) {
        this.plan = p;
        this.oids = allOids;
        // As the stream's Relation message describes the table (types, typmods, replica identity
        // flags), not as the chunks walk it: a read must decode, and key, like the same row streamed.
        List<ColumnInfo> all = new ArrayList<>();
        for (KeyedTable.Column c : p.columns()) {
            all.add(new ColumnInfo(c.replicaIdentity() ? ColumnInfo.FLAG_KEY : 0, c.name(), c.typeOid(), c.typmod()));
        }
        selected = new RelationInfo(relOid, p.schema(), p.table(), p.replicaIdentity(), all);
        relation = new RelationInfo(relOid, p.schema(), p.table(), p.replicaIdentity(), all.subList(0, p.publishedColumnCount()));
    }

    /**
     * The positions of the columns chunk rows are matched by ({@link KeyedTable#matchColumns}) in a
     * stream relation of this table, matched by name; null when the relation lacks one (a key column outside the publication's column list: such a change
     * cannot be matched and is treated as touching the whole table).
     */
    int[] streamKeys(RelationInfo r) {
        if (r != keyedRelation) {
            keyedRelation = r;
            List<KeyedTable.Column> keys = plan.matchColumns();
            streamKeyIdx = new int[keys.size()];
            for (int k = 0; k < keys.size(); k++) {
                streamKeyIdx[k] = -1;
                for (int i = 0; i < r.columnCount(); i++) {
                    if (r.column(i).name().equals(keys.get(k).name())) streamKeyIdx[k] = i;
                }
                if (streamKeyIdx[k] < 0) {
                    streamKeyIdx = null;
                    break;
                }
            }
        }
        return streamKeyIdx;
    }

    /** The touches are tracked from now: {@code delivered} are the commits delivered before (see {@link StreamWindow#recentlyDelivered}). */
    void trackFrom(long[] delivered) {
        deliveredBefore = delivered;
    }

    /** Adds the commits the server's snapshots did not see yet once tracking started (see {@link LingeringCommits}). */
    void lingering(long[] xids) {
        if (xids.length == 0) return;
        deliveredBefore = java.util.stream.LongStream.concat(Arrays.stream(deliveredBefore), Arrays.stream(xids)).distinct().toArray();
    }

    /** {@return whether {@code s} misses a transaction delivered before the touches were tracked: its chunk is stale} */
    boolean missesEarlierCommit(XidSnapshot s) {
        for (long xid : deliveredBefore) if (!s.sees(xid)) return true;
        return false;
    }

    /**
     * Forgets the transactions delivered before tracking that every open and later chunk's snapshot
     * sees: a committed transaction seen by a snapshot is seen by every snapshot taken after it, and
     * each open chunk's snapshot was taken after its {@link Chunk#safeSnapshot} (not after a chunk of
     * another worker emitted before it: parallel reads' snapshots come in any order).
     */
    void pruneDeliveredBefore() {
        if (deliveredBefore.length == 0) return;
        List<XidSnapshot> earlier = new ArrayList<>();
        if (!inFlight()) earlier.add(lastSnapshot);
        for (Cursor c : cursors) for (Chunk ch : c.open) earlier.add(ch.safeSnapshot);
        if (earlier.contains(null)) return;
        deliveredBefore = Arrays.stream(deliveredBefore).filter(x -> earlier.stream().anyMatch(e -> !e.sees(x))).toArray();
    }

    /**
     * Forgets touches no open or later chunk can be affected by (see {@link TouchLog#prune}): the
     * floor is a snapshot read before every open chunk started (its xmin is at most theirs), and
     * the LSN up to which every commit was delivered before they started.
     */
    void pruneTouches(long lastCommitLsn) {
        XidSnapshot floor = null;
        long lsnFloor = lastCommitLsn;
        if (!inFlight()) {
            floor = lastSnapshot;
        } else {
            for (Cursor c : cursors) {
                for (Chunk ch : c.open) {
                    if (ch.safeSnapshot == null) return;
                    if (floor == null || ch.safeSnapshot.xmin() < floor.xmin()) floor = ch.safeSnapshot;
                    if (Long.compareUnsigned(ch.lsnFloor, lsnFloor) < 0) lsnFloor = ch.lsnFloor;
                }
            }
        }
        if (floor != null) touches.prune(floor, lsnFloor);
    }

    boolean inFlight() {
        for (Cursor c : cursors) if (!c.open.isEmpty()) return true;
        return false;
    }

    boolean allDone() {
        for (Cursor c : cursors) if (!c.done) return false;
        return !cursors.isEmpty();
    }

    ProgressState.Table state() {
        if (plan == null && resumed == null) return new ProgressState.Table(name, condition, surrogateKey, null);
        if (cursors.isEmpty()) return new ProgressState.Table(name, condition, surrogateKey, resumed);
        List<ProgressState.Range> rs = new ArrayList<>();
        for (Cursor c : cursors) rs.add(new ProgressState.Range(c.range.after(), c.range.upTo(), c.lastKey, c.done));
        return new ProgressState.Table(name, condition, surrogateKey, rs);
    }

    TableProgress progress() {
        return new TableProgress(name, status, chunks, rows, plan == null ? -1 : plan.estimatedRows(), error);
    }
}
