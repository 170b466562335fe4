package io.pgrepl.flink.internal;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.flink.StartupMode;
import io.pgrepl.flink.TableName;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.flink.api.connector.source.SourceEvent;
import org.apache.flink.api.connector.source.SplitEnumerator;
import org.apache.flink.api.connector.source.SplitEnumeratorContext;
import org.apache.flink.metrics.MetricGroup;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands out the snapshot splits, one per request, then the stream split to one reader.
 *
 * <p>The stream split starts only after a checkpoint completed that was taken once every snapshot
 * split had finished. Snapshot rows and stream changes of one key reach an operator through
 * different channels (different subtasks read them); with aligned checkpoints an operator
 * processes everything sent before a checkpoint's barrier on all its inputs before it takes part
 * in the checkpoint, so once that checkpoint is complete every snapshot row has been processed
 * everywhere downstream and no stream change can overtake one. (Unaligned checkpoints do not give
 * this: the source refuses to start the stream under them, see {@link PgreplSourceReader}.)
 *
 * <p>Finished splits are counted only once a completed checkpoint of this enumerator holds them:
 * when a reader registers again after a restart, the reports it made after its last checkpoint are
 * dropped (the splits given back to the enumerator are read again, a split in progress at the
 * checkpoint is read on) and the reader is asked to report again what its restored state holds
 * ({@link ReportAgainEvent}). Reports are idempotent: the same split reported twice counts once, and
 * one a completed checkpoint already holds is acknowledged again.
 *
 * <p>The stream split may stop for tables to be read again (a snapshot signal, or a lost slot with
 * {@code slot.lost.handling} snapshot). Its suspension is reported and acted on the same way, once
 * a completed checkpoint holds it: then no restore can bring back the stream from before it while
 * the tables are read. The tables are planned again (after a new slot, when it was lost), their
 * splits read in parallel, and once a checkpoint completed after the last one the stream goes on
 * from where it stopped with their pieces as its coverage for those tables.
 */
public final class PgreplEnumerator implements SplitEnumerator<PgreplSplit, EnumeratorState> {
    private static final Logger log = LoggerFactory.getLogger(PgreplEnumerator.class);

    private final SplitEnumeratorContext<PgreplSplit> context;
    private final Settings settings;
    private boolean planned;
    private boolean planning;
    private long streamStart;
    private long stopLsn;
    private int totalSplits;
    private final ArrayDeque<SnapshotSplit> pending = new ArrayDeque<>();
    /** Finished splits a completed checkpoint holds. */
    private final Map<String, SnapshotSplit> finished = new LinkedHashMap<>();
    /** Finished splits reported since, by the subtask that reported them. */
    private final Map<String, SnapshotSplit> reported = new LinkedHashMap<>();
    private final Map<String, Integer> reportedBy = new HashMap<>();
    /** Reported splits as of each checkpoint taken and not yet complete. */
    private final Map<Long, Set<String>> reportedAt = new HashMap<>();
    private boolean streamReady;
    private long readyCheckpoint = -1;
    private boolean streamAssigned;
    private StreamSplit returnedStream;
    private boolean streamFinished;
    private final Set<Integer> waiting = new LinkedHashSet<>();
    private SlotWatch slotWatch;
    private final Set<Integer> registered = new HashSet<>();
    /** The stream split stopped for tables to be read again, acted on; null once the stream goes on. */
    private volatile StreamSplit suspended;
    /** How many suspensions were acted on. */
    private int epoch;
    /** Whether the tables {@code suspended} asks for were planned. */
    private boolean replanned;
    private boolean replanning;
    /** A suspension reported since, who reported it, and the first checkpoint of this enumerator that holds it (-1: none yet). */
    private volatile StreamSplit reportedSuspension;
    private int reportedSuspensionBy = -1;
    private long suspensionCheckpoint = -1;

    PgreplEnumerator(SplitEnumeratorContext<PgreplSplit> context, Settings settings, EnumeratorState state) {
        this.context = context;
        this.settings = settings;
        this.planned = state.planned();
        this.streamStart = state.streamStart();
        this.stopLsn = state.stopLsn();
        this.totalSplits = state.totalSplits();
        this.pending.addAll(state.pending());
        this.finished.putAll(state.finished());
        this.streamReady = state.streamReady();
        this.streamAssigned = state.streamAssigned();
        this.returnedStream = state.returnedStream();
        this.suspended = state.suspended();
        this.epoch = state.epoch();
        this.replanned = state.replanned();
        MetricGroup g = context.metricGroup().addGroup("pgrepl");
        g.gauge("snapshotSplitsTotal", () -> (long) totalSplits);
        g.gauge("snapshotSplitsFinished", () -> (long) finished.size());
        context.metricGroup().setUnassignedSplitsGauge(() -> (long) pending.size());
        g.gauge("slotRetainedWalBytes", () -> slotWatch == null ? -1L : slotWatch.retainedWal());
        // 1 while the stream waits for tables to be read again: why its lag grows then
        g.gauge("streamSuspended", () -> suspended != null || reportedSuspension != null ? 1L : 0L);
    }

    /** A new enumerator. */
    public static PgreplEnumerator create(SplitEnumeratorContext<PgreplSplit> context, Settings settings, EnumeratorState state) {
        return new PgreplEnumerator(context, settings, state);
    }

    /**
     * An enumerator restored from a checkpoint. A split it had not assigned then may have been
     * assigned and read after it, with rows emitted before the failure: its pieces are read again.
     */
    public static PgreplEnumerator restore(SplitEnumeratorContext<PgreplSplit> context, Settings settings, EnumeratorState state) {
        PgreplEnumerator e = new PgreplEnumerator(context, settings, state);
        List<SnapshotSplit> again = new ArrayList<>(e.pending.size());
        for (SnapshotSplit s : e.pending) again.add(s.readAgain());
        e.pending.clear();
        e.pending.addAll(again);
        return e;
    }

    @Override
    public void start() {
        if (slotWatch == null) {
            slotWatch = SlotWatch.start(settings, e -> context.runInCoordinatorThread(() -> {
                throw e;
            }));
        }
        if (planned) {
            if (suspended != null && !replanned) replan(); // restored while the tables were being planned again
            return;
        }
        if (planning) return;
        planning = true;
        context.callAsync(() -> Planning.plan(settings), (plan, error) -> {
            planning = false;
            if (error != null) throw new IllegalStateException("pgrepl source: planning failed: " + error.getMessage(), error);
            planned = true;
            streamStart = plan.streamStart();
            totalSplits = plan.splits().size();
            pending.addAll(plan.splits());
            if (totalSplits == 0) streamReady = true;
            serveWaiting();
        });
    }

    @Override
    public void handleSplitRequest(int subtask, String host) {
        waiting.add(subtask);
        serveWaiting();
    }

    private void serveWaiting() {
        if (!planned) return;
        for (Integer subtask : new ArrayList<>(waiting)) {
            if (!context.registeredReaders().containsKey(subtask)) continue;
            SnapshotSplit next = pending.pollFirst();
            if (next != null) {
                context.assignSplit(next, subtask);
                waiting.remove(subtask);
                continue;
            }
            if (streamReady && !streamAssigned && !streamFinished && finishedAll() && (suspended == null || replanned)) {
                context.assignSplit(streamSplit(), subtask);
                streamAssigned = true;
                waiting.remove(subtask);
                log.info("pgrepl source: stream split assigned to subtask {}", subtask);
                continue;
            }
            if (nothingLeftFor()) {
                context.signalNoMoreSplits(subtask);
                waiting.remove(subtask);
            }
        }
    }

    /** Whether a waiting reader can be told there is nothing more: every snapshot split is done and the stream is with a reader (or over). */
    private boolean nothingLeftFor() {
        return pending.isEmpty() && finishedAll() && (streamAssigned || streamFinished) && !readsMayFollow();
    }

    /** Whether tables may be read again while the stream runs: then idle readers stay, to read their splits. */
    private boolean readsMayFollow() {
        return !streamFinished && settings.startupMode() != StartupMode.SNAPSHOT
                && (settings.signalTable() != null || settings.lostSlotSnapshot());
    }

    private boolean finishedAll() {
        return finished.size() == totalSplits;
    }

    private StreamSplit streamSplit() {
        if (returnedStream != null) {
            StreamSplit s = returnedStream;
            returnedStream = null;
            return s;
        }
        Map<TableName, Map<Integer, List<Piece>>> ordered = new HashMap<>();
        for (SnapshotSplit s : finished.values()) {
            ordered.computeIfAbsent(s.table(), t -> new java.util.TreeMap<>()).put(s.index(), s.pieces());
        }
        Map<TableName, List<Piece>> coverage = new LinkedHashMap<>();
        long stop = 0;
        for (Map.Entry<TableName, Map<Integer, List<Piece>>> e : ordered.entrySet()) {
            List<Piece> all = new ArrayList<>();
            for (List<Piece> ps : e.getValue().values()) all.addAll(ps);
            coverage.put(e.getKey(), all);
            for (Piece p : all) if (Long.compareUnsigned(p.lsn(), stop) > 0) stop = p.lsn();
        }
        if (settings.startupMode() == StartupMode.SNAPSHOT) stopLsn = stop == 0 ? 1 : stop;
        if (suspended != null) {
            // on from where it stopped, or from the new slot's start when the old one was lost
            StreamSplit s = suspended;
            suspended = null;
            replanned = false;
            Set<TableName> reread = new LinkedHashSet<>(s.reread());
            reread.addAll(s.suspended().tables());
            StreamSplit at = s.suspended().slotLost() ? s.at(streamStart, 0, 0) : s;
            return new StreamSplit(at.lsn(), at.partialEndLsn(), at.partialCount(), stopLsn, coverage, reread, s.held(), epoch, null);
        }
        return new StreamSplit(streamStart, 0, 0, stopLsn, coverage, Set.of(), List.of(), epoch, null);
    }

    @Override
    public void addSplitsBack(List<PgreplSplit> splits, int subtask) {
        for (PgreplSplit s : splits) {
            if (s instanceof SnapshotSplit snap) {
                reported.remove(snap.id());
                finished.remove(snap.id());
                pending.addFirst(snap.readAgain()); // its reader may have emitted rows of it before it failed
            } else if (s instanceof StreamSplit st) {
                streamAssigned = false;
                returnedStream = st;
            }
        }
        log.info("pgrepl source: {} split(s) given back by subtask {}", splits.size(), subtask);
    }

    @Override
    public void addReader(int subtask) {
        if (!registered.add(subtask)) {
            // A reader that restarted: what it reported since its last checkpoint is in its restored state again (or was given
            // back); that includes the stream as of then, running or with the same suspension, which it reports again.
            // Its reports may have arrived before this registration (Flink adds the restored splits first): dropped
            // with the rest, so it is asked to send them again; idempotent either way.
            List<String> dropped = new ArrayList<>();
            reportedBy.entrySet().removeIf(e -> {
                if (e.getValue() != subtask) return false;
                reported.remove(e.getKey());
                dropped.add(e.getKey());
                return true;
            });
            // A checkpoint that held them and never completed must not count them when a later one does.
            reportedAt.values().forEach(ids -> ids.removeAll(dropped));
            if (reportedSuspensionBy == subtask) {
                reportedSuspension = null;
                reportedSuspensionBy = -1;
                suspensionCheckpoint = -1;
            }
            log.info("pgrepl source: subtask {} registered again; {} report(s) since its checkpoint dropped, asked to report again",
                    subtask, dropped.size());
            context.sendEventToSourceReader(subtask, new ReportAgainEvent());
        }
        serveWaiting();
    }

    @Override
    public void handleSourceEvent(int subtask, SourceEvent event) {
        if (event instanceof SplitsFinishedEvent f) {
            List<String> ack = new ArrayList<>();
            for (SnapshotSplit s : f.splits()) {
                if (finished.containsKey(s.id())) {
                    ack.add(s.id()); // a completed checkpoint already holds it: a restored reader reported it again
                } else {
                    reported.put(s.id(), s);
                    reportedBy.put(s.id(), subtask);
                }
            }
            if (!ack.isEmpty()) context.sendEventToSourceReader(subtask, new SplitsAckEvent(ack));
        } else if (event instanceof StreamSuspendedEvent e) {
            suspension(subtask, e.split());
        } else if (event instanceof StreamFinishedEvent) {
            streamFinished = true;
            streamAssigned = false;
            dropSlot();
            for (Integer r : context.registeredReaders().keySet()) context.signalNoMoreSplits(r);
            waiting.clear();
        }
    }

    private void suspension(int subtask, StreamSplit s) {
        if (s.epoch() < epoch) {
            // acted on before: a reader restored from a checkpoint taken before the acknowledgement reached it
            context.sendEventToSourceReader(subtask, new SplitsAckEvent(List.of(StreamSplit.ID)));
            return;
        }
        reportedSuspension = s;
        reportedSuspensionBy = subtask;
        suspensionCheckpoint = -1;
        log.info("pgrepl source: the stream stopped at {} for {} to be read again{}; acted on once a checkpoint holds it",
                io.pgrepl.codec.Lsn.format(s.lsn()), s.suspended().tables(), s.suspended().slotLost() ? " (the slot was lost)" : "");
    }

    /** A completed checkpoint holds the suspension: the stream is off, the tables are planned again. */
    private void actOnSuspension() {
        suspended = reportedSuspension;
        int by = reportedSuspensionBy;
        reportedSuspension = null;
        reportedSuspensionBy = -1;
        suspensionCheckpoint = -1;
        epoch++;
        replanned = false;
        streamAssigned = false;
        returnedStream = null;
        if (context.registeredReaders().containsKey(by)) context.sendEventToSourceReader(by, new SplitsAckEvent(List.of(StreamSplit.ID)));
        replan();
    }

    private void replan() {
        if (replanning) return;
        replanning = true;
        Resnapshot request = suspended.suspended();
        int generation = epoch;
        context.callAsync(() -> Planning.replan(settings, request, generation), (plan, error) -> {
            replanning = false;
            if (error != null) {
                throw new IllegalStateException("pgrepl source: planning " + request.tables() + " again failed: " + error.getMessage(), error);
            }
            Set<TableName> again = new HashSet<>(request.tables());
            finished.values().removeIf(f -> again.contains(f.table()));
            pending.removeIf(p -> again.contains(p.table()));
            pending.addAll(plan.splits());
            totalSplits = finished.size() + reported.size() + pending.size();
            if (request.slotLost()) streamStart = plan.streamStart();
            replanned = true;
            streamReady = plan.splits().isEmpty();
            readyCheckpoint = -1;
            log.info("pgrepl source: {} split(s) of {} to read again", plan.splits().size(), request.tables());
            serveWaiting();
        });
    }

    @Override
    public EnumeratorState snapshotState(long checkpointId) {
        reportedAt.put(checkpointId, new HashSet<>(reported.keySet()));
        Map<String, SnapshotSplit> all = new LinkedHashMap<>(finished);
        all.putAll(reported);
        if (!streamReady && planned && all.size() == totalSplits && readyCheckpoint < 0 && (suspended == null || replanned)) {
            readyCheckpoint = checkpointId;
        }
        if (reportedSuspension != null && suspensionCheckpoint < 0) suspensionCheckpoint = checkpointId;
        // A reported suspension is recorded as acted on: a restore from this checkpoint brings back its reader with it
        // (reported again, then acknowledged as an older epoch's) and plans the tables again.
        boolean held = reportedSuspension != null;
        return new EnumeratorState(planned, streamStart, stopLsn, totalSplits, List.copyOf(pending), all, streamReady,
                streamAssigned && !held, held ? null : returnedStream, held ? reportedSuspension : suspended, held ? epoch + 1 : epoch,
                !held && replanned);
    }

    @Override
    public void notifyCheckpointComplete(long checkpointId) {
        Map<Integer, List<String>> acks = new HashMap<>();
        for (Map.Entry<Long, Set<String>> e : new ArrayList<>(reportedAt.entrySet())) {
            if (e.getKey() > checkpointId) continue;
            for (String id : e.getValue()) {
                SnapshotSplit s = reported.remove(id);
                Integer by = reportedBy.remove(id);
                if (s == null) continue;
                finished.put(id, s);
                if (by != null) acks.computeIfAbsent(by, b -> new ArrayList<>()).add(id);
            }
            reportedAt.remove(e.getKey());
        }
        acks.forEach((subtask, ids) -> {
            if (context.registeredReaders().containsKey(subtask)) context.sendEventToSourceReader(subtask, new SplitsAckEvent(ids));
        });
        if (reportedSuspension != null && suspensionCheckpoint >= 0 && checkpointId >= suspensionCheckpoint) actOnSuspension();
        if (!streamReady && readyCheckpoint >= 0 && checkpointId >= readyCheckpoint) {
            if (finishedAll()) {
                streamReady = true;
                log.info("pgrepl source: every snapshot split finished and checkpoint {} completed: the stream may start", checkpointId);
            } else {
                readyCheckpoint = -1; // a reader restarted since: wait for the next checkpoint that holds them all
            }
        }
        serveWaiting();
    }

    /** Startup mode snapshot: the slot served its one bounded read and would only hold WAL from now on. */
    private void dropSlot() {
        if (settings.startupMode() != StartupMode.SNAPSHOT) return;
        context.callAsync(() -> {
            try (PgConnection c = Db.connect(settings, ReplicationMode.DATABASE)) {
                Db.await(c.dropReplicationSlot(settings.slotName(), true), settings, "dropping slot " + settings.slotName(), Db.TIMEOUT);
            }
            return null;
        }, (v, e) -> {
            if (e != null) log.warn("pgrepl source: could not drop slot {} after the snapshot: {}", settings.slotName(), e.getMessage());
            else log.info("pgrepl source: dropped slot {} after the snapshot", settings.slotName());
        });
    }

    @Override
    public void close() {
        if (slotWatch != null) slotWatch.close();
    }
}
