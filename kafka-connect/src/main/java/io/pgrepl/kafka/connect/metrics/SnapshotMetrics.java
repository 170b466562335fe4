package io.pgrepl.kafka.connect.metrics;

import io.pgrepl.client.snapshot.incremental.TableProgress;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The initial snapshot's figures, and an incremental snapshot's as it goes (Debezium reports both on
 * this bean). The states follow Debezium's: running while copying; paused and resumed by signals;
 * completed or aborted once it ends (each clears the others); skipped when the task starts without
 * one, on top of the rest (so SnapshotCompleted stays false then, as in Debezium).
 */
final class SnapshotMetrics extends PipelineMetrics implements SnapshotMetricsMXBean {
    private volatile boolean running;
    private volatile boolean paused;
    private volatile boolean completed;
    private volatile boolean aborted;
    private volatile boolean skipped;
    private final AtomicLong startMillis = new AtomicLong();
    private final AtomicLong stopMillis = new AtomicLong();
    private final AtomicLong pausedAt = new AtomicLong();
    private final AtomicLong pausedMillis = new AtomicLong();
    /** The incremental snapshot's tables not ended yet, with their last status (the builder thread's). */
    private final Map<String, TableProgress.Status> incremental = new LinkedHashMap<>();
    private final Map<String, Long> rowsScanned = new ConcurrentHashMap<>();
    private final Set<String> remaining = ConcurrentHashMap.newKeySet();

    void started(List<String> tables) {
        capturedTables(tables);
        remaining.addAll(tables);
        running = true;
        paused = false;
        completed = false;
        aborted = false;
        skipped = false;
        startMillis.set(System.currentTimeMillis());
        stopMillis.set(0);
        pausedAt.set(0);
        pausedMillis.set(0);
    }

    void completed() {
        // A table without rows has no read that ends it: read to its end with 0 rows, as Debezium reports it.
        for (String t : capturedTables) rowsScanned.putIfAbsent(t, 0L);
        remaining.clear();
        ended();
    }

    private void ended() {
        completed = true;
        aborted = false;
        running = false;
        paused = false;
        skipped = false;
        stopMillis.set(System.currentTimeMillis());
    }

    void aborted() {
        if (!running && !paused) return;
        completed = false;
        aborted = true;
        running = false;
        paused = false;
        skipped = false;
        stopMillis.set(System.currentTimeMillis());
    }

    private void paused() {
        if (paused) return;
        running = false;
        paused = true;
        pausedAt.set(System.currentTimeMillis());
    }

    private void resumed() {
        if (!paused) return;
        running = true;
        paused = false;
        pausedMillis.addAndGet(System.currentTimeMillis() - pausedAt.get());
    }

    /**
     * A table's incremental snapshot progressed ({@code nothingLeft}: no table runs or waits after
     * it). The first table of a snapshot starts it; the last one's end completes it, or aborts it
     * when stopped by a signal; rows scanned follow each chunk.
     */
    void incremental(TableProgress p, boolean nothingLeft) {
        String t = p.table();
        TableProgress.Status before = incremental.get(t);
        if (before == null) {
            if (incremental.isEmpty() && !running && !paused) started(List.of());
            capturedTables.add(t);
            remaining.add(t);
        }
        switch (p.status()) {
            case PLANNING -> incremental.put(t, p.status());
            case RUNNING -> {
                if (before == TableProgress.Status.PAUSED) resumed();
                incremental.put(t, p.status());
                rowsScanned.put(t, p.rows());
            }
            case PAUSED -> {
                paused();
                incremental.put(t, p.status());
            }
            case COMPLETED, FAILED -> {
                rowsScanned.put(t, p.rows());
                remaining.remove(t);
                incremental.remove(t);
                if (nothingLeft) ended();
            }
            case STOPPED -> {
                remaining.remove(t);
                incremental.remove(t);
                if (nothingLeft) aborted();
            }
        }
    }

    void skipped() {
        skipped = true;
        stopMillis.set(System.currentTimeMillis());
    }

    @Override
    void event(EventCounters.Event e, long now) {
        String t = e.table();
        if (t == null || !"r".equals(e.op())) return;
        rowsScanned.merge(t, 1L, Long::sum);
        Object mark = e.source("snapshot");
        // Each table's last read is marked (the whole copy's last one "last"): the table is read to its end.
        if ("last_in_data_collection".equals(mark) || "last".equals(mark)) remaining.remove(t);
    }

    @Override public int getTotalTableCount() { return capturedTables.size(); }
    @Override public int getRemainingTableCount() { return remaining.size(); }
    @Override public boolean getSnapshotRunning() { return running; }
    @Override public boolean getSnapshotPaused() { return paused; }
    @Override public boolean getSnapshotCompleted() { return completed; }
    @Override public boolean getSnapshotAborted() { return aborted; }
    @Override public boolean getSnapshotSkipped() { return skipped; }

    @Override
    public long getSnapshotDurationInSeconds() {
        long start = startMillis.get();
        if (start <= 0) return 0;
        long stop = stopMillis.get();
        return ((stop == 0 ? System.currentTimeMillis() : stop) - start) / 1000;
    }

    @Override
    public long getSnapshotPausedDurationInSeconds() {
        long at = pausedAt.get();
        return (pausedMillis.get() + (paused && at > 0 ? System.currentTimeMillis() - at : 0)) / 1000;
    }
    @Override public Map<String, Long> getRowsScanned() { return Map.copyOf(rowsScanned); }
    @Override public String getChunkId() { return null; }
    @Override public String getChunkFrom() { return null; }
    @Override public String getChunkTo() { return null; }
    @Override public String getTableFrom() { return null; }
    @Override public String getTableTo() { return null; }
    @Override public Map<String, Long> getTableChunkCounts() { return Map.of(); }
    @Override public Map<String, Long> getTableChunksCompletedCounts() { return Map.of(); }

    @Override
    public void reset() {
        super.reset();
        running = false;
        paused = false;
        completed = false;
        aborted = false;
        skipped = false;
        startMillis.set(0);
        stopMillis.set(0);
        pausedAt.set(0);
        pausedMillis.set(0);
        rowsScanned.clear();
        remaining.clear();
        capturedTables.clear();
    }
}
