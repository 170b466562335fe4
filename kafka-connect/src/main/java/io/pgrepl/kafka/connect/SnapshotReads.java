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
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * The task's initial-snapshot phase: the client's {@link SnapshotPublisher} creates the slot with
 * an exported snapshot and copies the publication's tables with snapshot.max.threads workers; the
 * task's poll() drains the rows as {@code op=r} records. Memory is bounded end to end: the
 * publisher pauses the COPY sockets above its high watermark, and the blocking face between it
 * and poll() requests only a small prefetch, so neither the event loops nor the task thread ever
 * wait for one another. Each table's newest read is held back until the table's next read (or the
 * copy's end), so reads are marked as Debezium marks them: {@code source.snapshot} is {@code "first"}
 * on the first read handed over, {@code "first_in_data_collection"} and
 * {@code "last_in_data_collection"} on a table's first and last reads, {@code "true"} in between, and
 * {@code "last"} on the very last read, which also carries the offset that says the copy is complete.
 * Tables are copied in parallel, so a table's last read may come after other tables' reads.
 */
final class SnapshotReads implements AutoCloseable {
    private static final int PREFETCH = 64;
    /** Rows the publisher queues before it pauses the COPY sockets. */
    private static final FlowOptions FLOW = FlowOptions.defaults().withWatermarks(512, 128);

    private final SnapshotPublisher publisher;
    private final BlockingChanges<ChangeEvent> rows;
    private final ChangeRecords records;
    private final long startedMicros = System.currentTimeMillis() * 1000;
    /** Per table (by topic): its newest read, held back, and whether it is the table's first read. */
    private final Map<String, Held> held = new LinkedHashMap<>();
    private boolean handedOver;
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
                // Every table's last read (beyond max, by at most one per table); the very last one says the copy is done.
                for (Iterator<Held> it = held.values().iterator(); it.hasNext(); ) {
                    Held h = it.next();
                    out.add(it.hasNext() ? marked(h, true) : ChangeRecords.lastRead(h.read(), r.consistentPoint()));
                }
                held.clear();
                done = true;
                return true;
            }
            if (ev == null) return false;
            records.read(ev.relation(), (Insert) ev.record(), ev.walStart(), index++, startedMicros, r -> {
                Held previous = held.put(r.topic(), new Held(r, !held.containsKey(r.topic())));
                if (previous != null) out.add(marked(previous, false));
            });
        }
        return false;
    }

    private record Held(SourceRecord read, boolean firstInTable) {}

    /** A read handed over: its {@code source.snapshot} marker as Debezium sets it (the last read aside). */
    private SourceRecord marked(Held h, boolean lastInTable) {
        String mark = h.firstInTable() && !handedOver ? "first"
                : lastInTable ? "last_in_data_collection"
                : h.firstInTable() ? "first_in_data_collection" : null;
        handedOver = true;
        if (mark == null) return h.read();
        SourceRecord read = h.read();
        Struct old = (Struct) read.value();
        Struct value = new Struct(old.schema());
        for (Field f : old.schema().fields()) value.put(f, old.get(f));
        value.put("source", SourceInfo.withSnapshot(old.getStruct("source"), mark));
        return new SourceRecord(read.sourcePartition(), read.sourceOffset(), read.topic(), read.kafkaPartition(),
                read.keySchema(), read.key(), read.valueSchema(), value, read.timestamp());
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
