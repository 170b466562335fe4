package io.pgrepl.kafka.connect;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.blocking.BlockingChanges;
import io.pgrepl.client.reactive.ChangeEvent;
import io.pgrepl.client.reactive.FlowOptions;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.snapshot.InitialSnapshotMode;
import io.pgrepl.client.snapshot.SnapshotOptions;
import io.pgrepl.client.snapshot.SnapshotPublisher;
import io.pgrepl.client.snapshot.SnapshotResult;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.codec.pgoutput.record.Insert;
import java.time.Duration;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * The task's initial-snapshot phase: the client's {@link SnapshotPublisher} creates the slot with
 * an exported snapshot and copies the publication's tables with snapshot.max.threads workers; the
 * task's poll() drains the rows as {@code op=r} records. Memory is bounded end to end: the
 * publisher pauses the COPY sockets above its high watermark, and the blocking face between it
 * and poll() requests only a small prefetch, so neither the event loops nor the task thread ever
 * wait for one another. One read is held back so the last one can be marked
 * {@code source.snapshot="last"} with the offset that says the copy is complete.
 */
final class SnapshotReads implements AutoCloseable {
    private static final int PREFETCH = 64;
    /** Rows the publisher queues before it pauses the COPY sockets. */
    private static final FlowOptions FLOW = FlowOptions.defaults().withWatermarks(512, 128);

    private final SnapshotPublisher publisher;
    private final BlockingChanges<ChangeEvent> rows;
    private final ChangeRecords records;
    private final long startedMicros = System.currentTimeMillis() * 1000;
    private SourceRecord held;
    private int index;
    private boolean done;

    private SnapshotReads(SnapshotPublisher publisher, ChangeRecords records) {
        this.publisher = publisher;
        this.records = records;
        this.rows = BlockingChanges.of(publisher, PREFETCH, publisher.snapshot().handle((r, e) -> null));
    }

    /**
     * Starts the copy on {@code replication} (which must not be streaming; once the copy is done it
     * is free to stream). The slot must not exist: the snapshot API refuses an existing slot.
     *
     * @param temporary create a temporary slot (initial_only: nothing streams from it afterwards)
     */
    static SnapshotReads start(PgConnection replication, PgreplConnectorConfig config, LogicalReplicationOptions stream,
                               boolean temporary, ChangeRecords records) {
        CreateSlotOptions slot = CreateSlotOptions.logical(config.slotName(), "pgoutput").withTemporary(temporary);
        if (config.slotFailover() && !temporary) slot = slot.withFailover(true);
        SnapshotOptions options = SnapshotOptions.of(stream).withSlot(slot).withWorkers(config.snapshotMaxThreads());
        return new SnapshotReads(new SnapshotPublisher(replication, InitialSnapshotMode.INITIAL_ONLY, options, FLOW), records);
    }

    /**
     * Adds up to {@code max} reads to {@code out}, waiting up to {@code wait} for the first.
     * Returns true once the copy is complete and its last read was added. A failed copy throws
     * (the snapshot API has then dropped the slot it created).
     */
    boolean drain(List<SourceRecord> out, int max, Duration wait) throws InterruptedException {
        if (done) return true;
        long deadline = System.nanoTime() + wait.toNanos();
        while (out.size() < max) {
            long left = out.isEmpty() ? Math.max(0, deadline - System.nanoTime()) : 0;
            ChangeEvent ev;
            try {
                ev = rows.poll(Duration.ofNanos(left));
            } catch (NoSuchElementException complete) {
                SnapshotResult r = result();
                if (held != null) out.add(ChangeRecords.lastRead(held, r.consistentPoint()));
                held = null;
                done = true;
                return true;
            }
            if (ev == null) return false;
            records.read(ev.relation(), (Insert) ev.record(), ev.walStart(), index++, startedMicros, r -> {
                if (held != null) out.add(held);
                held = r;
            });
        }
        return false;
    }

    /** The finished snapshot (only once {@link #drain} returned true). */
    SnapshotResult result() {
        return publisher.snapshot().toCompletableFuture().join();
    }

    /** Stops the copy if it is still running (the snapshot API then drops the slot it created). */
    @Override
    public void close() {
        rows.close();
    }
}
