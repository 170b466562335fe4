package io.pgrepl.kafka.connect.snapshot;

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
import io.pgrepl.kafka.connect.PgreplConnectorConfig;
import io.pgrepl.kafka.connect.StartPlan;
import io.pgrepl.kafka.connect.records.ChangeRecords;
import io.pgrepl.kafka.connect.records.ReadRecords;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * The task's initial-snapshot phase: the client's {@link SnapshotPublisher} creates the slot with
 * an exported snapshot (or, beside a slot that is kept, exports a fresh one: see {@link StartPlan})
 * and copies the publication's tables with snapshot.max.threads workers; the
 * task's poll() drains the rows as {@code op=r} records. Memory is bounded end to end: the
 * publisher pauses the COPY sockets above its high watermark, and the blocking face between it
 * and poll() requests only a small prefetch, so neither the event loops nor the task thread ever
 * wait for one another. Each table's newest read is held back until the table's next read (or the
 * copy's end), so reads are marked as Debezium marks them: {@code source.snapshot} is {@code "first"}
 * on the first read handed over, {@code "first_in_data_collection"} and
 * {@code "last_in_data_collection"} on a table's first and last reads, {@code "true"} in between, and
 * {@code "last"} on the very last read, which also carries the offset that says the copy is complete.
 * Tables are copied in parallel, so a table's last read may come after other tables' reads.
 *
 * <p>The reads are built into records ahead of poll(), on a thread of their own
 * ({@code pgrepl-records-SLOT}, as streamed changes are), so building overlaps Connect's conversion
 * and send() on the task thread; at most {@link #BUILT_AHEAD} chunks of max.batch.size records wait.
 */
public final class SnapshotReads implements AutoCloseable {
    private static final int PREFETCH = 64;
    /** Rows the publisher queues before it pauses the COPY sockets. */
    private static final FlowOptions FLOW = FlowOptions.defaults().withWatermarks(512, 128);
    /** Chunks built ahead of poll(). */
    public static final int BUILT_AHEAD = 4;
    /** How long the builder waits for a row before it hands over a partial chunk. */
    private static final Duration IDLE_WAIT = Duration.ofMillis(100);

    private final SnapshotPublisher publisher;
    private final BlockingChanges<ChangeEvent> rows;
    private final ChangeRecords records;
    private final int chunkSize;
    /** The existing slot's stream-from point, or 0: the new slot's consistent point. */
    private final long streamFrom;
    private final long startedMicros = System.currentTimeMillis() * 1000;
    /** Chunks of reads, the last one followed by {@link #COMPLETE}, or the copy's failure; builder to poll(). */
    private final BlockingQueue<Object> builtAhead = new ArrayBlockingQueue<>(BUILT_AHEAD + 1);
    private static final Object COMPLETE = new Object();
    private final Thread builder;
    private volatile boolean closed;
    /** poll() only: a chunk that did not fit the last batch, or a failure that waits for the batch before it. */
    private Object pending;
    private boolean done;
    /** Builder thread only: whether a read was handed over (the first gets {@code "first"}). */
    private boolean handedOver;

    private SnapshotReads(SnapshotPublisher publisher, ChangeRecords records, int chunkSize, String slot, long streamFrom) {
        this.publisher = publisher;
        this.streamFrom = streamFrom;
        this.records = records;
        this.chunkSize = Math.max(1, chunkSize);
        this.rows = BlockingChanges.of(publisher, PREFETCH, publisher.snapshot().handle((r, e) -> null));
        this.builder = new Thread(this::build, "pgrepl-records-" + slot);
        builder.setDaemon(true);
    }

    /**
     * Starts the copy on {@code replication} (which must not be streaming; once the copy is done it
     * is free to stream), as {@code plan} says: creating the slot with an exported snapshot
     * (permanent, and kept if the copy fails: it may already hold changes the topics need; or
     * temporary for initial_only), or beside the existing slot under a fresh snapshot. Every read
     * carries {@link #streamFrom()} as its LSN and in its offset.
     */
    public static SnapshotReads start(PgConnection replication, PgreplConnectorConfig config, LogicalReplicationOptions stream,
                               StartPlan plan, ChangeRecords records) {
        boolean temporary = plan.action() == StartPlan.Action.SNAPSHOT_TEMPORARY;
        boolean existing = plan.action() == StartPlan.Action.SNAPSHOT_EXISTING_SLOT
                || plan.action() == StartPlan.Action.SNAPSHOT_BESIDE_SLOT;
        CreateSlotOptions slot = CreateSlotOptions.logical(config.slotName(), "pgoutput").withTemporary(temporary);
        if (config.slotFailover() && !temporary) slot = slot.withFailover(true);
        SnapshotOptions options = SnapshotOptions.of(stream).withSlot(slot).withWorkers(config.snapshotMaxThreads())
                .withKeepSlotOnFailure(true).withExistingSlot(existing).withWorkerConfig(config.dataConnectionConfig());
        long from = plan.action() == StartPlan.Action.SNAPSHOT_EXISTING_SLOT ? plan.streamFrom() : 0;
        SnapshotReads r = new SnapshotReads(new SnapshotPublisher(replication, InitialSnapshotMode.INITIAL_ONLY, options, FLOW),
                records, config.maxBatchSize(), config.slotName(), from);
        r.builder.start();
        return r;
    }

    /**
     * Where streaming starts after the copy (and the LSN every read carries): the existing slot's
     * position the plan named, else the new slot's consistent point (once the copy completed).
     */
    public long streamFrom() {
        return streamFrom != 0 ? streamFrom : result().consistentPoint();
    }

    /**
     * Adds up to {@code max} reads to {@code out} (chunks of at most max.batch.size, in parts if larger than max), waiting
     * up to {@code wait} for the first. Returns true once the copy is complete and its last read
     * was added. A failed copy throws (the snapshot API has then dropped the slot it created).
     */
    public boolean drain(List<SourceRecord> out, int max, Duration wait) throws InterruptedException {
        if (done) return true;
        long deadline = System.nanoTime() + wait.toNanos();
        while (true) {
            Object next = pending;
            pending = null;
            if (next == null) {
                long left = out.isEmpty() ? Math.max(0, deadline - System.nanoTime()) : 0;
                next = builtAhead.poll(left, TimeUnit.NANOSECONDS);
                if (next == null) return false;
            }
            if (next == COMPLETE) {
                done = true;
                return true;
            }
            if (next instanceof RuntimeException failure) {
                if (!out.isEmpty()) {
                    pending = failure; // what was built before it goes first
                    return false;
                }
                throw failure;
            }
            @SuppressWarnings("unchecked")
            List<SourceRecord> chunk = (List<SourceRecord>) next;
            if (!out.isEmpty() && out.size() + chunk.size() > max) {
                pending = chunk;
                return false;
            }
            if (chunk.size() > max) {
                // Reads stand alone: a chunk may be handed over in parts (max.unacknowledged.ms can allow less).
                pending = chunk.subList(max, chunk.size());
                chunk = chunk.subList(0, max);
            }
            out.addAll(chunk);
            if (out.size() >= max) return false;
        }
    }

    /** The builder thread: reads rows into chunks of records until the copy completes, fails or is closed. */
    private void build() {
        // Per table (by topic): its newest read, held back, and whether it is the table's first read.
        Map<String, Held> held = new LinkedHashMap<>();
        List<SourceRecord> chunk = new ArrayList<>();
        int index = 0;
        try {
            while (!closed) {
                ChangeEvent ev;
                try {
                    ev = rows.poll(chunk.isEmpty() ? IDLE_WAIT : Duration.ZERO);
                } catch (NoSuchElementException complete) {
                    // Every table's last read (beyond chunkSize, by at most one per table); the very last one says the copy is done.
                    for (Iterator<Held> it = held.values().iterator(); it.hasNext(); ) {
                        Held h = it.next();
                        chunk.add(it.hasNext() ? marked(h, true) : ReadRecords.lastRead(h.read(), streamFrom()));
                    }
                    if (!chunk.isEmpty()) deliver(chunk);
                    deliver(COMPLETE);
                    return;
                }
                if (ev == null) {
                    if (!chunk.isEmpty()) {
                        deliver(chunk);
                        chunk = new ArrayList<>();
                    }
                    continue;
                }
                List<SourceRecord> into = chunk;
                records.read(ev.relation(), (Insert) ev.record(), streamFrom != 0 ? streamFrom : ev.walStart(), index++, startedMicros, r -> {
                    Held previous = held.put(r.topic(), new Held(r, !held.containsKey(r.topic())));
                    if (previous != null) into.add(marked(previous, false));
                });
                if (chunk.size() >= chunkSize) {
                    deliver(chunk);
                    chunk = new ArrayList<>();
                }
            }
        } catch (InterruptedException stopped) {
            // close()
        } catch (RuntimeException e) {
            if (!closed) {
                builtAhead.clear(); // nothing after a failure is handed over anyway
                builtAhead.offer(e);
            }
        }
    }

    private record Held(SourceRecord read, boolean firstInTable) {}

    /** A read handed over: its {@code source.snapshot} marker as Debezium sets it (the last read aside). */
    private SourceRecord marked(Held h, boolean lastInTable) {
        String mark = h.firstInTable() && !handedOver ? "first"
                : lastInTable ? "last_in_data_collection"
                : h.firstInTable() ? "first_in_data_collection" : null;
        handedOver = true;
        return mark == null ? h.read() : ReadRecords.markedRead(h.read(), mark, h.read().sourceOffset());
    }

    /** Waits for room ahead of poll() (the copy pauses meanwhile: the publisher's queue is bounded too). */
    private void deliver(Object o) throws InterruptedException {
        while (!builtAhead.offer(o, 100, TimeUnit.MILLISECONDS)) {
            if (closed) throw new InterruptedException("closed");
        }
    }

    /** The reads built ahead of poll(), as the metrics' queue: up to {@link #BUILT_AHEAD} chunks of max.batch.size. */
    public io.pgrepl.kafka.connect.metrics.Queue queue() {
        int capacity = (BUILT_AHEAD + 1) * chunkSize;
        return new io.pgrepl.kafka.connect.metrics.Queue() {
            @Override public int capacity() { return capacity; }

            @Override
            public int waiting() {
                int n = 0;
                for (Object o : builtAhead) if (o instanceof List<?> l) n += l.size();
                return n;
            }
        };
    }

    /** The finished snapshot (only once {@link #drain} returned true, or on the builder thread at completion). */
    public SnapshotResult result() {
        return publisher.snapshot().toCompletableFuture().join();
    }

    /** Stops the copy if it is still running and waits for its end (the slot stays). */
    @Override
    public void close() {
        closeNow();
        rows.close();
    }

    /** Asks the copy to stop without waiting for it (stop(): Connect allows seconds). */
    public void closeNow() {
        closed = true;
        builder.interrupt();
    }
}
