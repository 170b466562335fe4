package io.pgrepl.client.snapshot.incremental;

import java.util.List;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The workers of the tables under way (event loop of the stream only): which worker reads its next
 * chunk now, the read on its own connection, and a transient failure read again on a new one after
 * a pause. Apart from {@link Engine}, which decides which tables run and emits what the workers
 * read, because a worker's reads and retries are its own affair.
 */
final class ChunkWorkers {
    private static final Logger log = LoggerFactory.getLogger(IncrementalSnapshots.class);
    /** Consecutive transient failures of one worker's chunk before its table fails. */
    private static final int MAX_RETRIES = 3;
    /** A chunk read again after a transient failure waits this long, doubled per failure in a row. */
    private static final long CHUNK_RETRY_MS = 100;
    /**
     * Chunks a worker reads ahead while the stream has not passed its previous chunk's high mark
     * yet: the read overlaps the marks' trip through the walsender and the emission of the rows.
     */
    static final int READ_AHEAD = 1;
    /** No read ahead starts while the chunks read and not emitted hold this many bytes (a slow stream buffers no table). */
    static final long READ_AHEAD_BYTES = 64L << 20;
    private final Engine engine;

    ChunkWorkers(Engine engine) {
        this.engine = engine;
    }

    /** Starts the next chunk of each worker of {@code t} that may read one now. */
    void startDue(TableRun t) {
        for (TableRun.Cursor c : t.cursors) {
            if (heldBack(c)) continue;
            if (c.mayStart(engine.options.chunkSize(), READ_AHEAD)
                    && (c.open.isEmpty() || engine.chunks.heldBytes() < READ_AHEAD_BYTES)) {
                startChunk(t, c);
            }
        }
    }

    /**
     * Whether the worker waits before reading a stale chunk again (a timer schedules again once the
     * wait is over), or reads nothing ahead of the chunk read again: that one may well be stale too,
     * and the chunk read ahead would go with it.
     */
    private boolean heldBack(TableRun.Cursor c) {
        if (c.staleReads > 0 && !c.open.isEmpty()) return true;
        long wait = c.retryAt - System.nanoTime();
        if (c.retryAt == 0 || wait <= 0) {
            c.retryAt = 0;
            return false;
        }
        if (!c.retryArmed) {
            c.retryArmed = true;
            // Through the current loop: a reconnect may have moved the engine to another by then.
            engine.loop.schedule(() -> engine.loop.execute(() -> {
                c.retryArmed = false;
                engine.schedule();
            }), wait, java.util.concurrent.TimeUnit.NANOSECONDS);
        }
        return true;
    }

    CompletionStage<ChunkReader> openReader() {
        return ChunkReader.open(engine.options, engine.mode, engine.timeZone, engine.loop);
    }

    private void startChunk(TableRun t, TableRun.Cursor c) {
        if (c.reader == null) c.reader = openReader();
        List<String> after = c.after(); // before the new chunk is open: after the newest one's rows
        Chunk ch = engine.chunks.open(t, c);
        ch.streamShapeAtStart = engine.stream.schemaTracker().shape(t.relation.oid());
        c.reader.thenCompose(r -> r.read(ch.token, t.plan, t.selected, after, c.range.upTo(), engine.options.chunkSize()))
                .whenComplete((read, e) -> engine.loop.execute(() -> onRead(ch, read, e)));
    }

    private void onRead(Chunk ch, ChunkRead read, Throwable e) {
        if (ch.abandoned) {
            if (read != null) read.rows().release();
            return;
        }
        if (e != null) {
            engine.chunks.abandonFrom(ch);
            if (ReadShapes.columnGone(e)) {
                log.info("slot {}: a column of {} is gone ({}); planning it again", engine.slot, ch.table.name, Failures.message(e));
                engine.replan(ch.table);
                engine.schedule();
                return;
            }
            if (Failures.isTransient(e) && ++ch.cursor.failures <= MAX_RETRIES) {
                // The connection went (terminated, network): a new one reads the chunk again.
                log.warn("slot {}: chunk of {} failed ({}); reading it again on a new connection", engine.slot, ch.table.name, Failures.message(e));
                CompletionStage<ChunkReader> dead = ch.cursor.reader;
                ch.cursor.reader = null;
                ch.cursor.retryAt = System.nanoTime()
                        + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(Failures.backoffMs(ch.cursor.failures, CHUNK_RETRY_MS, 1000));
                if (dead != null) dead.thenAccept(r -> r.connection().close());
                engine.schedule();
            } else {
                engine.fail(ch.table, e);
            }
            return;
        }
        ch.cursor.failures = 0;
        ch.read = read;
        ch.table.lastSnapshot = read.snapshot();
        if (engine.mode == WatermarkMode.READ_ONLY) {
            ch.lowLsn = read.lowLsn();
            ch.markLsn = read.highLsn();
            ch.position = ch.markLsn;
            if (Long.compareUnsigned(engine.window.lastCommitLsn, ch.markLsn) >= 0) ch.passed = true;
        }
        // Emitted from a stream callback, where a handler exception ends the stream as documented;
        // the keepalive asked for here comes at once even when the database is idle.
        engine.stream.requestKeepalive();
        engine.schedule(); // the next chunk is read while this one's high mark travels
    }
}
