package io.pgrepl.client.snapshot.incremental;

import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.codec.pgoutput.BeginMessage;
import io.pgrepl.codec.pgoutput.BeginPrepareMessage;
import io.pgrepl.codec.pgoutput.CommitMessage;
import io.pgrepl.codec.pgoutput.CommitPreparedMessage;
import io.pgrepl.codec.pgoutput.DeleteMessage;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.codec.pgoutput.LogicalMessage;
import io.pgrepl.codec.pgoutput.OriginMessage;
import io.pgrepl.codec.pgoutput.PrepareMessage;
import io.pgrepl.codec.pgoutput.RelationMessage;
import io.pgrepl.codec.pgoutput.RollbackPreparedMessage;
import io.pgrepl.codec.pgoutput.StreamAbortMessage;
import io.pgrepl.codec.pgoutput.StreamCommitMessage;
import io.pgrepl.codec.pgoutput.StreamStartMessage;
import io.pgrepl.codec.pgoutput.StreamStopMessage;
import io.pgrepl.codec.pgoutput.TruncateMessage;
import io.pgrepl.codec.pgoutput.TypeMessage;
import io.pgrepl.codec.pgoutput.UpdateMessage;
import io.pgrepl.codec.replication.PrimaryKeepalive;
import io.pgrepl.codec.replication.XLogData;
import io.pgrepl.client.stream.LogicalStreamHandler;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Incremental snapshots beside a running logical stream (the DBLog algorithm): a table is read in
 * chunks ordered by its key, each between a low and a high watermark, on ordinary connections,
 * while the stream goes on; the reads reach the same {@link SnapshotReadHandler} as the changes,
 * in stream order. Use it as the stream's handler: it passes every callback through and adds
 * {@link SnapshotReadHandler#onSnapshotRead}. Snapshots start from {@link #execute}, from a
 * {@code pg_logical_emit_message(true, 'pgrepl', '{"type":"execute-snapshot",...}')} in any
 * session (it reaches the stream through its own slot), or from a signal table row.
 *
 * <h2>One chunk</h2>
 * <ol>
 *   <li>low watermark: a transactional logical message (or signal table row) is committed; its
 *       commit LSN {@code L} is learned when the stream delivers it (read-only mode: no write, the
 *       WAL position is read inside the chunk's transaction);</li>
 *   <li>in one REPEATABLE READ transaction, {@code pg_current_snapshot()} (13+;
 *       {@code txid_current_snapshot()} before) is taken first, then the chunk is read with
 *       {@code COPY (SELECT ... WHERE key > last ORDER BY key LIMIT n) TO STDOUT} under that same
 *       snapshot {@code S};</li>
 *   <li>high watermark: another message (or row) committed after the read's transaction; in
 *       read-only mode the WAL position read then ({@code pg_current_wal_insert_lsn()}, or
 *       {@code pg_last_wal_replay_lsn()} on a standby);</li>
 *   <li>meanwhile every committed change the stream delivers to a key of a snapshotted table is
 *       recorded with its transaction's xid and commit LSN ({@link TouchLog});</li>
 *   <li>once the stream has passed the high mark (the mark's Commit arrived; read-only: a commit
 *       at or after the position, or a keepalive whose WAL end reached it, asked for with a
 *       reply-requested status update so an idle database does not stall), at the next
 *       transaction boundary, the chunk's rows are emitted, except those whose key a recorded
 *       change touched from a transaction that (a) committed after {@code L}, or (b) is invisible
 *       to {@code S} ({@code xid >= xmax} or in {@code xip}). A TRUNCATE of the table drops the
 *       whole chunk under the same test.</li>
 * </ol>
 *
 * <h2>Why that is exact</h2>
 * The handler must end up with, per key, the last committed state. Reads are emitted at a point
 * {@code P} in the stream after the high mark. A row read under {@code S} holds the effect of
 * exactly the transactions {@code S} sees. Every one of them committed before the read, hence
 * before the high mark, hence was delivered before {@code P}: the read never lacks a change the
 * handler already applied <em>unless</em> the handler also got a change {@code S} did not see.
 * Those are the transactions of (b): the ones that committed after the snapshot (their commit
 * comes after {@code L}, possibly even after the high mark but before {@code P}), and the subtle
 * one, a transaction whose commit record precedes {@code L} but which was still in the proc array
 * when the snapshot was taken, so {@code S} missed it although the stream showed it before the low
 * mark. For such a key the stream's change is newer than the row, so the row is dropped: the
 * change already carried the row's state (an insert or update) or its absence (a delete). Rule
 * (a) is DBLog's classic window test; next to (b) it is not needed for exactness (it only drops
 * rows whose state a stream change already carried) and is kept as the classic algorithm states
 * it. A key change (an update whose old key differs) touches both keys. A transaction delivered before the table was
 * tracked at all is checked against {@code S} too (the last 1024 commits): if {@code S} missed
 * one, the chunk is read again.
 *
 * <p>Streamed (in-progress) transactions ({@code streaming=on}) and prepared ones count only at
 * their Stream Commit / Commit Prepared, by their commit LSN and top-level xid: while one is open,
 * the chunk's row is the last committed state and is emitted; the transaction commits later in the
 * stream, so a consumer that applies transactions at their commit applies it after the read (its
 * changes may have been shown before, in blocks). One that aborts changes nothing. One streamed
 * or prepared before a table was tracked counts, at its commit, as touching every key of it; on a
 * two_phase stream, so does one listed in {@code pg_prepared_xacts} when the table is planned (its
 * PREPARE may predate this engine). Prepared transactions' held changes survive a reconnect: the
 * server does not send a confirmed PREPARE again, only its COMMIT PREPARED.
 *
 * <p>Every change of a key that precedes a read of that key in the output is older than the read;
 * no read follows a later change of its key. Limits: a change that carries an unchanged TOASTed
 * value does not carry the whole row, and a chunk row dropped for it leaves that value unknown
 * (as with Debezium); keys are compared as text, so the stream must not use pgoutput's binary
 * option.
 *
 * <h2>Position and resumption</h2>
 * Reads sit at their chunk's high mark. The slot keeps being confirmed as the application
 * acknowledges commits: nothing is held beyond one chunk's short transaction. {@link #state()} is
 * the progress (tables, ranges, last key emitted); store it with the LSN you acknowledge and pass
 * it back with {@link IncrementalOptions#withResumeState} to resume at the last emitted chunk.
 *
 * <p>Threading: stream callbacks on the stream's event loop, as for any handler; the control
 * methods are safe from any thread.
 */
public final class IncrementalSnapshots implements LogicalStreamHandler {
    private final Engine engine;
    private final SnapshotReadHandler user;
    private final Signals signals;
    private final List<Runnable> beforeStart = new ArrayList<>();
    private volatile boolean startedOnce;
    private final GuardControl guardControl;

    private IncrementalSnapshots(IncrementalOptions options, SnapshotReadHandler handler) {
        this.engine = new Engine(options, handler);
        this.user = handler;
        this.signals = new Signals(engine);
        this.guardControl = new GuardControl(this, engine);
    }

    /**
     * An engine wrapping {@code handler}; give it to the stream as its handler.
     *
     * @param options  connections, chunk size, watermarks, parallelism, a resume state
     * @param handler  receives the stream's callbacks and the reads
     * @return the engine
     */
    public static IncrementalSnapshots create(IncrementalOptions options, SnapshotReadHandler handler) {
        return new IncrementalSnapshots(options, handler);
    }

    // ---- control (any thread)

    /**
     * Requests snapshots of tables ({@code schema.table}; without a schema, {@code public}).
     *
     * @param tables the tables
     */
    public void execute(String... tables) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String t : tables) m.put(t, null);
        execute(m);
    }

    /**
     * Requests snapshots of tables, each with an additional condition (a WHERE clause) or null.
     *
     * @param tablesAndConditions table to condition, in the order to snapshot them
     */
    public void execute(Map<String, String> tablesAndConditions) {
        Map<String, String> copy = new LinkedHashMap<>(tablesAndConditions);
        run(() -> copy.forEach((t, c) -> engine.execute(t, c, null)));
    }

    /**
     * Stops the snapshots of tables, or of all when none is named; their state is forgotten.
     *
     * @param tables the tables, or none for all
     */
    public void stop(String... tables) {
        List<String> names = normalize(tables);
        run(() -> engine.stop(t -> names.isEmpty() || names.contains(t)));
    }

    /**
     * Pauses tables (all when none is named): the chunk in flight completes, no new one starts.
     *
     * @param tables the tables, or none for all
     */
    public void pause(String... tables) {
        List<String> names = normalize(tables);
        run(() -> engine.pause(names::contains, names.isEmpty(), true));
    }

    /**
     * Resumes paused tables (all when none is named).
     *
     * @param tables the tables, or none for all
     */
    public void resume(String... tables) {
        List<String> names = normalize(tables);
        run(() -> engine.pause(names::contains, names.isEmpty(), false));
    }

    /**
     * The slot guard's hook into this engine: give it to {@link io.pgrepl.client.slot.SlotGuard#snapshot}. At the
     * guard's snapshot step every table is held (the chunk in flight completes, no new one starts; the stream goes
     * on and is confirmed, so the slot can catch up) or, with {@code SnapshotAction.ABORT}, every table fails with
     * the guard's reason; when the slot is back below the step, the guard's hold is released. Pauses asked for by
     * signals or {@link #pause} are separate: the guard never resumes them.
     *
     * @return the control, one per engine
     */
    public io.pgrepl.client.slot.SnapshotControl guardControl() {
        return guardControl;
    }

    /**
     * Acts on a signal that came another way than the stream (e.g. a Kafka topic) exactly as on one
     * from the stream: execute (data collections may be regular expressions), stop, pause or resume;
     * a signal naming another slot is ignored.
     *
     * @param signal the signal, e.g. from {@link SnapshotSignals#parseMessage}
     * @param source where it came from, for the log
     */
    public void signal(SnapshotSignal signal, String source) {
        java.util.Objects.requireNonNull(signal, "signal");
        run(() -> signals.apply(signal, source));
    }

    /**
     * {@return whether nothing is left to read: no table waits, is being planned or is being read,
     * and no request waits for the stream to start (any thread)} A consumer that stops once the
     * stream goes quiet asks this first: a table still being planned sends nothing for a while.
     */
    public boolean isIdle() {
        synchronized (beforeStart) {
            if (!beforeStart.isEmpty()) return false;
        }
        return engine.openTables() == 0;
    }

    /** {@return the resumable progress, to store with the acknowledged LSN (any thread)} */
    public String state() {
        return engine.state();
    }

    /** {@return the progress of every table not yet ended} */
    public CompletionStage<List<TableProgress>> progress() {
        CompletableFuture<List<TableProgress>> f = new CompletableFuture<>();
        run(() -> f.complete(engine.progress()));
        return f;
    }

    /** Closes the chunk connections (after the stream stopped). */
    public void close() {
        run(engine::close);
    }

    private static List<String> normalize(String[] tables) {
        return Arrays.stream(tables).map(t -> t.contains(".") ? t : "public." + t).toList();
    }

    void run(Runnable r) {
        synchronized (beforeStart) {
            if (!startedOnce) {
                beforeStart.add(r);
                return;
            }
        }
        if (engine.loop.inEventLoop()) r.run();
        else engine.loop.execute(r);
    }

    // ---- the stream's callbacks

    @Override
    public void onStarted(LogicalReplicationStream stream) {
        user.onStarted(stream);
        engine.started(stream);
        List<Runnable> queued;
        synchronized (beforeStart) {
            startedOnce = true;
            queued = new ArrayList<>(beforeStart);
            beforeStart.clear();
        }
        queued.forEach(Runnable::run);
    }

    @Override
    public void onXLogData(XLogData header) {
        user.onXLogData(header);
    }

    @Override
    public void onKeepalive(PrimaryKeepalive keepalive) {
        user.onKeepalive(keepalive);
        if (engine.window.atBoundary()) engine.passedLsn(keepalive.walEnd());
        engine.emitReady();
        engine.keepaliveSeen();
    }

    @Override
    public void onBegin(BeginMessage m) {
        // Every commit before this one's was delivered: read-only marks it reached are passed.
        engine.passedLsn(m.finalLsn());
        engine.emitReady();
        engine.window.begin(m.xid(), m.finalLsn());
        user.onBegin(m);
    }

    @Override
    public void onCommit(CommitMessage m) {
        user.onCommit(m);
        engine.window.commit(m.commitLsn());
        engine.committed(m.commitLsn(), m.endLsn());
        engine.emitReady();
    }

    @Override
    public void onOrigin(OriginMessage m) {
        user.onOrigin(m);
    }

    @Override
    public void onRelation(RelationMessage m) {
        user.onRelation(m);
    }

    @Override
    public void onType(TypeMessage m) {
        user.onType(m);
    }

    @Override
    public void onSchemaChange(io.pgrepl.client.schema.SchemaChange c) {
        user.onSchemaChange(c);
    }

    @Override
    public void onInsert(InsertMessage m) {
        engine.window.change(m.relation(), null, m.newTuple(), m.hasXid() ? m.xid() : -1);
        user.onInsert(m);
        signals.maybeSignalRow(m);
    }

    @Override
    public void onUpdate(UpdateMessage m) {
        engine.window.change(m.relation(), m.hasOldTuple() ? m.oldTuple() : null, m.newTuple(), m.hasXid() ? m.xid() : -1);
        user.onUpdate(m);
    }

    @Override
    public void onDelete(DeleteMessage m) {
        engine.window.change(m.relation(), m.oldTuple(), null, m.hasXid() ? m.xid() : -1);
        user.onDelete(m);
    }

    @Override
    public void onTruncate(TruncateMessage m) {
        for (int i = 0; i < m.relationCount(); i++) engine.window.truncate(m.relation(i), m.hasXid() ? m.xid() : -1);
        user.onTruncate(m);
    }

    @Override
    public void onMessage(LogicalMessage m) {
        user.onMessage(m);
        signals.maybeMessage(m);
    }

    @Override
    public void onStreamStart(StreamStartMessage m) {
        engine.window.streamStart(m.xid());
        user.onStreamStart(m);
    }

    @Override
    public void onStreamStop(StreamStopMessage m) {
        user.onStreamStop(m);
        engine.window.streamStop();
        engine.emitReady();
    }

    @Override
    public void onStreamCommit(StreamCommitMessage m) {
        user.onStreamCommit(m);
        engine.window.committedLater(m.xid(), m.commitLsn());
        engine.passedLsn(m.commitLsn());
        engine.emitReady();
    }

    @Override
    public void onStreamAbort(StreamAbortMessage m) {
        user.onStreamAbort(m);
        engine.window.aborted(m.xid(), m.subXid());
    }

    @Override
    public void onBeginPrepare(BeginPrepareMessage m) {
        engine.window.beginPrepare(m.xid(), m.prepareLsn());
        user.onBeginPrepare(m);
    }

    @Override
    public void onPrepare(PrepareMessage m) {
        user.onPrepare(m);
        engine.window.prepared();
        engine.emitReady();
    }

    @Override
    public void onCommitPrepared(CommitPreparedMessage m) {
        user.onCommitPrepared(m);
        engine.window.committedLater(m.xid(), m.commitLsn());
        engine.passedLsn(m.commitLsn());
        engine.emitReady();
    }

    @Override
    public void onRollbackPrepared(RollbackPreparedMessage m) {
        user.onRollbackPrepared(m);
        engine.window.aborted(m.xid(), m.xid());
    }

    @Override
    public void onStreamPrepare(PrepareMessage m) {
        user.onStreamPrepare(m);
        engine.window.streamPrepared(m.xid());
    }
}
