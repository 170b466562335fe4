package io.pgrepl.client.snapshot.incremental;

import io.netty.channel.EventLoop;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.replication.QualifiedName;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tables, their workers and chunks (event loop of the stream only): schedules tables, and emits
 * each chunk once it is read and the stream has passed its high mark. A table's planning is
 * {@link TablePlanning}'s, its workers' reads {@link ChunkWorkers}'; the open chunks' books
 * (watermarks seen, emission, abandoning) are {@link OpenChunks}'.
 */
final class Engine {
    private static final Logger log = LoggerFactory.getLogger(IncrementalSnapshots.class);
    final IncrementalOptions options;
    final SnapshotReadHandler handler;
    final StreamWindow window = new StreamWindow();
    final LinkedHashMap<String, TableRun> tables = new LinkedHashMap<>();
    final OpenChunks chunks;
    private final TablePlanning planning = new TablePlanning(this);
    final ChunkWorkers workers = new ChunkWorkers(this);
    private boolean pausedAll;
    /** Held by the slot guard ({@link GuardControl}), apart from the pauses asked for by signals and the API. */
    private boolean guardHeld;
    LogicalReplicationStream stream;
    /** The stream's event loop; volatile: a reconnect may move to another, and control methods read it from any thread. */
    volatile EventLoop loop;
    List<String> publications;
    String slot;
    WatermarkMode mode;
    private String modeError;
    String timeZone;
    private volatile String state;
    boolean closed;
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

    boolean held(TableRun t) {
        return t.paused || pausedAll || guardHeld;
    }

    private void statusChanged() {
        for (TableRun t : tables.values()) {
            // PLANNING with a plan: waiting for the lingering commits (see TablePlanning#tracked), no chunk may start yet.
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
                if (t.cursors.isEmpty() && !t.planning) planning.plan(t);
                continue;
            }
            if (t.allDone() && !t.inFlight()) {
                finished.add(t);
                continue;
            }
            if (held(t)) continue;
            workers.startDue(t);
        }
        for (TableRun t : finished) end(t, TableProgress.Status.COMPLETED);
        if (!finished.isEmpty()) {
            updateState();
            schedule();
        }
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
    void replan(TableRun t) {
        if (tables.get(t.name) != t) return;
        io.pgrepl.codec.pgoutput.RelationInfo streamed = stream.schemaTracker().shape(t.relation.oid());
        List<ProgressState.Range> ranges = t.state().ranges();
        log.info("slot {}: {} changed shape during its incremental snapshot; planning it again, reading on from where it was ({})",
                slot, t.name, ranges);
        for (TableRun.Cursor c : t.cursors) chunks.abandonAll(c);
        rerun(t, ranges).replannedFor = streamed;
        updateState();
    }

    /**
     * {@code t} gives way to a new run of its table, planned afresh and reading on from
     * {@code resumed}: the old run's connections and tracking go, its counts and pauses carry over.
     */
    TableRun rerun(TableRun t, List<ProgressState.Range> resumed) {
        closeReaders(t);
        if (t.oids != null) for (int oid : t.oids) window.unregister(oid, t);
        TableRun fresh = new TableRun(t.name, t.condition, t.surrogateKey, resumed);
        fresh.replannedFor = t.replannedFor;
        fresh.chunks = t.chunks;
        fresh.rows = t.rows;
        fresh.paused = t.paused;
        tables.put(t.name, fresh);
        return fresh;
    }

    // ---- endings

    void end(TableRun t, TableProgress.Status status) {
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

    void fail(TableRun t, Throwable e) {
        fail(t, Failures.message(e));
    }

    void fail(TableRun t, String error) {
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

    void updateState() {
        List<ProgressState.Table> list = new ArrayList<>();
        for (TableRun t : tables.values()) list.add(t.state());
        state = ProgressState.encode(list);
        openTables = tables.size();
    }

    /** {@return the tables requested and not yet ended, as of the last state change (any thread)} */
    int openTables() {
        return openTables;
    }

    void progress(TableRun t) {
        try {
            handler.onSnapshotProgress(t.progress());
        } catch (RuntimeException e) {
            log.warn("slot {}: snapshot progress callback failed", slot, e);
        }
    }
}
