package io.pgrepl.client.snapshot.incremental;

import io.netty.channel.EventLoop;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.codec.Lsn;
import io.pgrepl.client.replication.QualifiedName;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tables, their workers and chunks (event loop of the stream only): plans tables, starts
 * chunks, and emits each once it is read and the stream has passed its high mark. The open
 * chunks' books (watermarks seen, emission, abandoning) are {@link OpenChunks}'; what planning a
 * table finds is a {@link PlannedTable}.
 */
final class Engine {
    private static final Logger log = LoggerFactory.getLogger(IncrementalSnapshots.class);
    /** Consecutive transient failures of one worker's chunk before its table fails. */
    private static final int MAX_RETRIES = 3;
    /** A chunk read again after a transient failure waits this long, doubled per failure in a row. */
    private static final long CHUNK_RETRY_MS = 100;
    /**
     * Planning attempts of one table before a transient failure (a lock not granted within
     * lock_timeout, a serialization failure, a lost connection) fails it; between them a pause of
     * {@link #PLAN_RETRY_MS} doubled per failure, at most {@link #PLAN_RETRY_MAX_MS}: some 30 s in all.
     */
    static final int MAX_PLAN_ATTEMPTS = 8;
    private static final long PLAN_RETRY_MS = 200;
    private static final long PLAN_RETRY_MAX_MS = 10_000;
    /**
     * Chunks a worker reads ahead while the stream has not passed its previous chunk's high mark
     * yet: the read overlaps the marks' trip through the walsender and the emission of the rows.
     */
    static final int READ_AHEAD = 1;
    /** No read ahead starts while the chunks read and not emitted hold this many bytes (a slow stream buffers no table). */
    static final long READ_AHEAD_BYTES = 64L << 20;
    final IncrementalOptions options;
    final SnapshotReadHandler handler;
    final StreamWindow window = new StreamWindow();
    private final LinkedHashMap<String, TableRun> tables = new LinkedHashMap<>();
    private final OpenChunks chunks;
    private boolean pausedAll;
    /** Held by the slot guard ({@link GuardControl}), apart from the pauses asked for by signals and the API. */
    private boolean guardHeld;
    private LogicalReplicationStream stream;
    /** The stream's event loop; volatile: a reconnect may move to another, and control methods read it from any thread. */
    volatile EventLoop loop;
    private List<String> publications;
    String slot;
    WatermarkMode mode;
    private String modeError;
    private String timeZone;
    private volatile String state;
    private boolean closed;
    private boolean keepaliveAsked;

    Engine(IncrementalOptions options, SnapshotReadHandler handler) {
        this.options = options;
        this.handler = handler;
        this.chunks = new OpenChunks(window, handler, options.chunkSize());
        this.state = options.resumeState() != null ? options.resumeState() : ProgressState.HEADER;
    }

    List<String> publications() {
        return publications;
    }

    String state() {
        return state;
    }

    private volatile int openTables;

    // ---- lifecycle

    void started(LogicalReplicationStream s) {
        boolean first = stream == null;
        stream = s;
        loop = s.eventLoop();
        window.reset();
        if (first) {
            publications = s.options().publicationNames();
            slot = s.options().slotName();
            timeZone = s.connection().parameters().get("TimeZone");
            resolveMode(s);
            if (options.resumeState() != null) {
                for (ProgressState.Table t : ProgressState.decode(options.resumeState())) {
                    // A state saved under another spelling of a name still resumes that table.
                    String name = canonical(t.name());
                    // Saved before the scope left it out: its progress is not read on.
                    String why = excluded(name);
                    if (why != null) excluded(name, why);
                    else tables.putIfAbsent(name, new TableRun(name, t.condition(), t.surrogateKey(), t.ranges()));
                }
                updateState();
                // A resumed table meets the checks a requested one does: no watermarks, or a binary
                // stream, fail it here as execute() refuses a new one (its key is checked once planned).
                if (modeError != null) abortAll(modeError);
            }
        } else {
            // A new connection resends from the acknowledged position: marks of chunks in flight
            // may or may not come again, so those chunks are read again.
            chunks.abandonAll();
        }
        schedule();
    }

    private void resolveMode(LogicalReplicationStream s) {
        int major = s.connection().serverMajor();
        boolean messages = Boolean.TRUE.equals(s.options().messages());
        mode = options.watermarks();
        if (mode == WatermarkMode.AUTO) {
            mode = major >= 14 && messages ? WatermarkMode.MESSAGE : options.signalTable() != null ? WatermarkMode.SIGNAL_TABLE : null;
            if (mode == null) modeError = "no watermarks available: message watermarks need PostgreSQL 14+ and the stream's"
                    + " messages option (server " + major + ", messages " + messages + "); configure a signal table or READ_ONLY";
        } else if (mode == WatermarkMode.MESSAGE && (major < 14 || !messages)) {
            modeError = "MESSAGE watermarks need PostgreSQL 14+ and the stream's messages option (server " + major
                    + ", messages " + messages + ")";
        }
        if (Boolean.TRUE.equals(s.options().binary())) {
            modeError = "incremental snapshots compare keys as text: start the stream without the binary option";
        }
    }

    void close() {
        closed = true;
        for (TableRun t : new ArrayList<>(tables.values())) closeReaders(t);
    }

    // ---- control

    /**
     * One spelling per table, so a table asked for as {@code Sales."Order-Items"} and as
     * {@code sales."Order-Items"} is planned once: the name parsed as PostgreSQL reads it and
     * written back canonically ({@link QualifiedName}); a name that does not parse is kept as
     * given, and its planning fails saying why.
     */
    static String canonical(String table) {
        try {
            return QualifiedName.parse(table).toString();
        } catch (IllegalArgumentException e) {
            return table;
        }
    }

    /**
     * Why the capture scope leaves {@code table} out, or null: from its name alone, so the answer is
     * the same whether it exists or not. A name that does not parse is no table to leave out (its
     * planning says what is wrong with it).
     */
    String excluded(String table) {
        QualifiedName q;
        try {
            q = QualifiedName.parse(table);
        } catch (IllegalArgumentException e) {
            return null;
        }
        return options.capture().excludes(q.schema(), q.name());
    }

    /** A request the capture scope refuses: reported EXCLUDED with the scope's reason, never planned, read or kept in the state. */
    void excluded(String name, String why) {
        TableRun t = new TableRun(name, null, null, null);
        t.error = why;
        t.status = TableProgress.Status.EXCLUDED;
        log.warn("slot {}: incremental snapshot of {} refused, nothing read: {}", slot, name, why);
        progress(t);
    }

    void execute(String table, String condition, String surrogateKey) {
        String name = canonical(table);
        String why = excluded(name);
        if (why != null) {
            excluded(name, why);
            return;
        }
        TableRun old = tables.get(name);
        if (old != null) {
            log.info("slot {}: incremental snapshot of {} already {}; request ignored", slot, name, old.status);
            return;
        }
        TableRun t = new TableRun(name, condition, surrogateKey, null);
        tables.put(name, t);
        if (modeError != null) {
            fail(t, new IllegalStateException(modeError));
            return;
        }
        updateState();
        schedule();
    }

    /** A request for {@code entry} that names no table: reported as a table that failed, so every face shows it. */
    void unmatched(String entry, String message) {
        if (tables.containsKey(entry)) return;
        TableRun t = new TableRun(entry, null, null, null);
        tables.put(entry, t);
        fail(t, new io.pgrepl.client.snapshot.SnapshotException(io.pgrepl.client.snapshot.SnapshotException.Kind.FAILED,
                message, entry, null));
    }

    void stop(java.util.function.Predicate<String> which) {
        for (TableRun t : new ArrayList<>(tables.values())) {
            if (!which.test(t.name)) continue;
            end(t, TableProgress.Status.STOPPED);
        }
        updateState();
        schedule();
    }

    void pause(java.util.function.Predicate<String> which, boolean all, boolean pause) {
        if (all) pausedAll = pause;
        for (TableRun t : tables.values()) if (all || which.test(t.name)) t.paused = pause;
        statusChanged();
    }

    /** The slot guard holds (or releases) every table, whatever signals and the API paused. */
    void guardHold(boolean hold) {
        guardHeld = hold;
        statusChanged();
    }

    /** The slot guard gives every table up: each fails with {@code reason}; the stream goes on. */
    void abortAll(String reason) {
        for (TableRun t : new ArrayList<>(tables.values())) fail(t, new IllegalStateException(reason));
    }

    private boolean held(TableRun t) {
        return t.paused || pausedAll || guardHeld;
    }

    private void statusChanged() {
        for (TableRun t : tables.values()) {
            // PLANNING with a plan: waiting for the lingering commits (see #tracked), no chunk may start yet.
            if (t.plan != null && t.status != TableProgress.Status.FAILED && t.status != TableProgress.Status.PLANNING) {
                TableProgress.Status s = held(t) ? TableProgress.Status.PAUSED : TableProgress.Status.RUNNING;
                if (s != t.status) {
                    t.status = s;
                    progress(t);
                }
            }
        }
        schedule();
    }

    List<TableProgress> progress() {
        return tables.values().stream().map(TableRun::progress).toList();
    }

    // ---- scheduling

    void schedule() {
        if (stream == null || closed) return;
        int active = 0;
        List<TableRun> finished = new ArrayList<>();
        for (TableRun t : tables.values()) {
            if (active++ >= options.parallelTables()) break;
            if (t.status == TableProgress.Status.PLANNING) {
                if (t.cursors.isEmpty() && !t.planning) plan(t);
                continue;
            }
            if (t.allDone() && !t.inFlight()) {
                finished.add(t);
                continue;
            }
            if (held(t)) continue;
            for (TableRun.Cursor c : t.cursors) {
                if (heldBack(c)) continue;
                if (c.mayStart(options.chunkSize(), READ_AHEAD) && (c.open.isEmpty() || chunks.heldBytes() < READ_AHEAD_BYTES)) {
                    startChunk(t, c);
                }
            }
        }
        for (TableRun t : finished) end(t, TableProgress.Status.COMPLETED);
        if (!finished.isEmpty()) {
            updateState();
            schedule();
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
            loop.schedule(() -> loop.execute(() -> {
                c.retryArmed = false;
                schedule();
            }), wait, java.util.concurrent.TimeUnit.NANOSECONDS);
        }
        return true;
    }

    private CompletionStage<ChunkReader> openReader() {
        return ChunkReader.open(options, mode, timeZone, loop);
    }

    private void plan(TableRun t) {
        t.planning = true;
        CompletionStage<ChunkReader> first = openReader();
        first.thenCompose(r -> PlannedTable.plan(r.connection(), publications, t, options.workersPerTable()))
                .whenComplete((p, e) -> loop.execute(() -> planned(t, first, p, e)));
    }

    private void planned(TableRun t, CompletionStage<ChunkReader> first, PlannedTable p, Throwable e) {
        if (tables.get(t.name) != t) {
            first.thenAccept(r -> r.connection().close());
            return;
        }
        if (e != null) {
            first.thenAccept(r -> r.connection().close());
            planningFailed(t, e);
            return;
        }
        String stale = t.resumed == null ? null : p.misfit(t.name, t.resumed);
        if (stale != null) {
            first.thenAccept(r -> r.connection().close());
            fail(t, stale);
            return;
        }
        String keyWhy = p.table() == null ? null : excludedKey(p.table());
        if (keyWhy != null) {
            // Before anything of the plan is kept: the progress carries no estimate either.
            first.thenAccept(r -> r.connection().close());
            tables.remove(t.name);
            updateState();
            excluded(t.name, keyWhy);
            schedule();
            return;
        }
        adopt(t, p.others());
        if (p.table() == null) {
            // Not published itself (a root published leaf by leaf, a parent whose children alone are
            // listed): the stream names none of its rows by it; the relations it names are read instead.
            first.thenAccept(r -> r.connection().close());
            log.info("slot {}: the stream names the rows of {} by other relations of its tree; snapshotting those: {}", slot, t.name,
                    p.others());
            end(t, TableProgress.Status.COMPLETED);
            schedule();
            return;
        }
        int[] oids = p.oids();
        t.planned(p.table(), oids[0], oids);
        if (t.resumed != null) {
            for (ProgressState.Range r : t.resumed) t.cursors.add(new TableRun.Cursor(new KeyRange(r.after(), r.upTo()), r.lastKey(), r.done()));
        } else if (p.ranges() != null) {
            for (KeyRange r : p.ranges()) t.cursors.add(new TableRun.Cursor(r, null, false));
        } else {
            t.cursors.add(new TableRun.Cursor(new KeyRange(null, null), null, false));
        }
        t.cursors.get(0).reader = first;
        for (int oid : oids) window.register(oid, t);
        t.trackFrom(window.recentlyDelivered());
        // Without two_phase the stream decodes a prepared transaction at COMMIT PREPARED, whole, as a plain commit.
        window.trackingStarts(t, Boolean.TRUE.equals(stream.options().twoPhase()) ? p.prepared() : null);
        // Still PLANNING (no chunk starts) until the server says which commits linger: asked now, after
        // the tracking started, and before any chunk's snapshot.
        first.thenCompose(r -> LingeringCommits.ask(r.connection()))
                .whenComplete((lingering, e2) -> loop.execute(() -> tracked(t, first, lingering, e2)));
    }

    /**
     * Why the scope leaves out a column of the key {@code k}'s chunks are walked by (its values would
     * bound every chunk and show in the progress), or null.
     */
    private String excludedKey(KeyedTable k) {
        for (KeyedTable.Column c : k.keyColumns()) {
            String why = options.capture().excludesColumn(k.schema(), k.table(), c.name());
            if (why != null) return why;
        }
        return null;
    }

    /**
     * The other relations of {@code t}'s tree the stream names rows by (see {@link PublishedTree}),
     * each a table of its own with {@code t}'s condition and surrogate key, unless already asked for.
     */
    private void adopt(TableRun t, List<String> others) {
        boolean added = false;
        for (String name : others) {
            if (tables.containsKey(name)) continue;
            String why = excluded(name);
            if (why != null) {
                excluded(name, why);
                continue;
            }
            tables.put(name, new TableRun(name, t.condition, t.surrogateKey, null));
            added = true;
        }
        if (added) {
            log.info("slot {}: incremental snapshot of {} takes the relations of its tree the stream names rows by: {}", slot, t.name, others);
            updateState();
        }
    }

    private void tracked(TableRun t, CompletionStage<ChunkReader> first, long[] lingering, Throwable e) {
        if (tables.get(t.name) != t) {
            first.thenAccept(r -> r.connection().close());
            return;
        }
        if (e != null) {
            planningFailed(t, e);
            return;
        }
        t.lingering(lingering);
        t.error = null; // a failed attempt's reason, reported while it waited
        t.status = held(t) ? TableProgress.Status.PAUSED : TableProgress.Status.RUNNING;
        log.info("slot {}: incremental snapshot of {} started: {} key range(s), about {} rows, {} watermarks", slot, t.name,
                t.cursors.size(), t.plan.estimatedRows(), mode);
        updateState();
        progress(t);
        schedule();
    }

    /**
     * Planning {@code t} failed: a transient error is tried again on a new connection after a pause
     * (the table stays PLANNING, its progress saying why it waits), up to {@link #MAX_PLAN_ATTEMPTS}
     * attempts; any other error, or the last attempt's, fails the table at once with the reason.
     */
    private void planningFailed(TableRun t, Throwable e) {
        int failures = t.planFailures + 1;
        if (!Failures.isTransient(e)) {
            fail(t, e);
            return;
        }
        if (failures >= MAX_PLAN_ATTEMPTS) {
            fail(t, "planning failed " + failures + " times in a row, the last time with: " + Failures.message(e));
            return;
        }
        // Whatever the failed attempt set up goes: a new run plans the table afresh.
        closeReaders(t);
        if (t.oids != null) for (int oid : t.oids) window.unregister(oid, t);
        TableRun fresh = new TableRun(t.name, t.condition, t.surrogateKey, t.resumed);
        fresh.replannedFor = t.replannedFor;
        fresh.chunks = t.chunks;
        fresh.rows = t.rows;
        fresh.paused = t.paused;
        fresh.planFailures = failures;
        fresh.planning = true; // until the pause is over
        long wait = Failures.backoffMs(failures, PLAN_RETRY_MS, PLAN_RETRY_MAX_MS);
        fresh.error = "planning attempt " + failures + " of " + MAX_PLAN_ATTEMPTS + " failed, trying again in " + wait + " ms: "
                + Failures.message(e);
        tables.put(t.name, fresh);
        log.warn("slot {}: incremental snapshot of {}: {}", slot, t.name, fresh.error);
        updateState();
        progress(fresh);
        // Through the current loop: a reconnect may have moved the engine to another by then.
        loop.schedule(() -> loop.execute(() -> {
            if (tables.get(fresh.name) != fresh || closed) return;
            fresh.planning = false;
            schedule();
        }), wait, java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    private void startChunk(TableRun t, TableRun.Cursor c) {
        if (c.reader == null) c.reader = openReader();
        List<String> after = c.after(); // before the new chunk is open: after the newest one's rows
        Chunk ch = chunks.open(t, c);
        ch.streamShapeAtStart = stream.schemaTracker().shape(t.relation.oid());
        c.reader.thenCompose(r -> r.read(ch.token, t.plan, t.selected, after, c.range.upTo(), options.chunkSize()))
                .whenComplete((read, e) -> loop.execute(() -> onRead(ch, read, e)));
    }

    private void onRead(Chunk ch, ChunkRead read, Throwable e) {
        if (ch.abandoned) {
            if (read != null) read.rows().release();
            return;
        }
        if (e != null) {
            chunks.abandonFrom(ch);
            if (ReadShapes.columnGone(e)) {
                log.info("slot {}: a column of {} is gone ({}); planning it again", slot, ch.table.name, Failures.message(e));
                replan(ch.table);
                schedule();
                return;
            }
            if (Failures.isTransient(e) && ++ch.cursor.failures <= MAX_RETRIES) {
                // The connection went (terminated, network): a new one reads the chunk again.
                log.warn("slot {}: chunk of {} failed ({}); reading it again on a new connection", slot, ch.table.name, Failures.message(e));
                CompletionStage<ChunkReader> dead = ch.cursor.reader;
                ch.cursor.reader = null;
                ch.cursor.retryAt = System.nanoTime()
                        + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(Failures.backoffMs(ch.cursor.failures, CHUNK_RETRY_MS, 1000));
                if (dead != null) dead.thenAccept(r -> r.connection().close());
                schedule();
            } else {
                fail(ch.table, e);
            }
            return;
        }
        ch.cursor.failures = 0;
        ch.read = read;
        ch.table.lastSnapshot = read.snapshot();
        if (mode == WatermarkMode.READ_ONLY) {
            ch.lowLsn = read.lowLsn();
            ch.markLsn = read.highLsn();
            ch.position = ch.markLsn;
            if (Long.compareUnsigned(window.lastCommitLsn, ch.markLsn) >= 0) ch.passed = true;
        }
        // Emitted from a stream callback, where a handler exception ends the stream as documented;
        // the keepalive asked for here comes at once even when the database is idle.
        stream.requestKeepalive();
        schedule(); // the next chunk is read while this one's high mark travels
    }

    // ---- stream positions (called by IncrementalSnapshots around the user's callbacks)

    /** A watermark arrived (message content or signal-table id): {@code token:low} or {@code token:high}. */
    void mark(String content) {
        chunks.mark(content);
    }

    /** After a Commit was delivered. */
    void committed(long commitLsn, long endLsn) {
        chunks.committed(endLsn);
        passedLsn(commitLsn);
    }

    /** The stream delivered everything before {@code lsn}: read-only chunks whose mark it reached may go. */
    void passedLsn(long lsn) {
        if (mode != WatermarkMode.READ_ONLY) return;
        chunks.passedLsn(lsn);
    }

    /**
     * After a keepalive: a read-only chunk still short of its mark asks for another soon (the WAL
     * up to the mark may not be flushed yet, and the walsender sends only flushed WAL).
     */
    void keepaliveSeen() {
        if (mode != WatermarkMode.READ_ONLY || keepaliveAsked || !chunks.awaitingMark()) return;
        keepaliveAsked = true;
        LogicalReplicationStream s = stream;
        loop.schedule(() -> {
            keepaliveAsked = false;
            if (s == stream && !closed) s.requestKeepalive();
        }, 20, java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    /**
     * At a transaction boundary: emits every chunk read and passed whose worker has no older chunk
     * open (start order is each worker's key order, and an older chunk's high mark comes first).
     */
    void emitReady() {
        if (!window.atBoundary() || chunks.isEmpty()) return;
        boolean any = false;
        java.util.Set<TableRun> replan = new java.util.LinkedHashSet<>();
        for (Chunk ch : chunks.inStartOrder()) {
            if (replan.contains(ch.table)) continue;
            if (OpenChunks.ready(ch)) {
                if (ReadShapes.replan(ch, stream.schemaTracker(), handler)) {
                    replan.add(ch.table);
                    continue;
                }
                if (chunks.emit(ch, slot)) {
                    updateState();
                    progress(ch.table);
                }
                any = true;
            }
        }
        for (TableRun t : replan) replan(t);
        if (any || !replan.isEmpty()) schedule();
    }

    /**
     * The stream delivered {@code t} in another shape than its plan's (see {@link ReadShapes}): its
     * open chunks go, and a new run reads on from each range's last emitted key with a new plan,
     * as a resumed snapshot does.
     */
    private void replan(TableRun t) {
        if (tables.get(t.name) != t) return;
        io.pgrepl.codec.pgoutput.RelationInfo streamed = stream.schemaTracker().shape(t.relation.oid());
        List<ProgressState.Range> ranges = t.state().ranges();
        log.info("slot {}: {} changed shape during its incremental snapshot; planning it again, reading on from where it was ({})",
                slot, t.name, ranges);
        for (TableRun.Cursor c : t.cursors) chunks.abandonAll(c);
        closeReaders(t);
        if (t.oids != null) for (int oid : t.oids) window.unregister(oid, t);
        TableRun fresh = new TableRun(t.name, t.condition, t.surrogateKey, ranges);
        fresh.replannedFor = streamed;
        fresh.chunks = t.chunks;
        fresh.rows = t.rows;
        fresh.paused = t.paused;
        tables.put(t.name, fresh);
        updateState();
    }

    // ---- endings

    private void end(TableRun t, TableProgress.Status status) {
        for (TableRun.Cursor c : t.cursors) chunks.abandonAll(c);
        closeReaders(t);
        tables.remove(t.name);
        if (t.oids != null) for (int oid : t.oids) window.unregister(oid, t);
        t.status = status;
        updateState(); // without the table before its last progress, so a state read in the callback is current
        log.info("slot {}: incremental snapshot of {} {}: {} chunks, {} rows", slot, t.name, status.name().toLowerCase(java.util.Locale.ROOT),
                t.chunks, t.rows);
        progress(t);
    }

    private void fail(TableRun t, Throwable e) {
        fail(t, Failures.message(e));
    }

    private void fail(TableRun t, String error) {
        t.error = error;
        log.error("slot {}: incremental snapshot of {} failed: {}", slot, t.name, t.error);
        end(t, TableProgress.Status.FAILED);
        updateState();
        schedule();
    }

    private static void closeReaders(TableRun t) {
        for (TableRun.Cursor c : t.cursors) {
            if (c.reader != null) c.reader.thenAccept(r -> r.connection().close());
        }
    }

    private void updateState() {
        List<ProgressState.Table> list = new ArrayList<>();
        for (TableRun t : tables.values()) list.add(t.state());
        state = ProgressState.encode(list);
        openTables = tables.size();
    }

    /** {@return the tables requested and not yet ended, as of the last state change (any thread)} */
    int openTables() {
        return openTables;
    }

    private void progress(TableRun t) {
        try {
            handler.onSnapshotProgress(t.progress());
        } catch (RuntimeException e) {
            log.warn("slot {}: snapshot progress callback failed", slot, e);
        }
    }

    static String lsn(long l) {
        return Lsn.format(l);
    }
}
