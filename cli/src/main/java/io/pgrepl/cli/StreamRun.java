package io.pgrepl.cli;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.snapshot.InitialSnapshot;
import io.pgrepl.client.snapshot.InitialSnapshotMode;
import io.pgrepl.client.snapshot.SnapshotException;
import io.pgrepl.client.snapshot.SnapshotOptions;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.LogicalStreamHandler;
import io.pgrepl.client.stream.ReconnectPolicy;
import io.pgrepl.client.stream.ReconnectingLogicalStream;
import io.pgrepl.client.stream.ReplicationException;
import io.pgrepl.client.tx.Transaction;
import io.pgrepl.client.tx.TxEvent;
import io.pgrepl.codec.Lsn;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.function.LongConsumer;

/**
 * The printing side of {@code pgrepl stream}: the event loop hands over rendered text
 * ({@link ProtocolSource}) or assembled transactions ({@link TxSource}); this thread writes them,
 * then acknowledges them (after an fsync when the output is a file with --fsync-interval). Too much
 * waiting (by count or by bytes) pauses socket reading; keepalives go on.
 *
 * <p>Stops at --end-lsn, --idle-exit (counted from when START_REPLICATION was answered), the
 * server's end, an error, or SIGINT/SIGTERM: the item being written is finished and flushed, what
 * was written is acknowledged, and the stream ends with a last status update and CopyDone.
 */
final class StreamRun {
    private static final int HIGH_ITEMS = 1024;
    /**
     * Queued for printing beyond this pauses reading. Small on purpose: what waits here is live heap,
     * and a queue deep enough to reach the old generation costs full collections under the launcher's
     * small heap; the walsender, not the queue, bounds throughput.
     */
    private static final long HIGH_BYTES = 4L << 20;
    private static final Object END = new Object();
    private static final Object WAKE = new Object();

    /**
     * Backoff and the wait for a slot held by another connection, for every start: the reconnecting
     * stream's and, without --reconnect, the single stream's first START_REPLICATION. Tests shorten the wait.
     */
    static volatile ReconnectPolicy policy = ReconnectPolicy.defaults();

    private final StreamOptions settings;
    private final Output output;
    private final PrintStream err;
    private final Verbose verbose;
    private final LinkedBlockingQueue<Object> queue = new LinkedBlockingQueue<>();
    private final AtomicLong queuedBytes = new AtomicLong();
    private volatile LogicalReplicationStream current;
    private volatile boolean paused;
    private volatile boolean stopRequested;
    private volatile long startedNanos;
    private volatile long lastDataNanos;
    /** --snapshot=incremental: whether tables are still to be read (no --idle-exit while they are). */
    private volatile java.util.function.BooleanSupplier snapshotBusy = () -> false;
    private volatile ReconnectingLogicalStream reconnecting;
    private volatile LogicalReplicationStream single;
    /** Without --reconnect: the start, which may wait for a slot held by another connection. */
    private volatile HeldSlotStart singleStart;
    /** --snapshot: the snapshot's lines, and whether its snapshot_end line was written (printing thread). */
    private volatile SnapshotSource snapshot;
    private boolean snapshotWritten;
    private LongConsumer acknowledge;
    private long pendingAckLsn;
    private TxEvent pendingAckEvent;

    StreamRun(StreamOptions settings, Output output, PrintStream err) {
        this.settings = settings;
        this.output = output;
        this.err = err;
        this.verbose = new Verbose(settings, err);
    }

    /** Where the slot resumes, from the up-front check (for the -v start line). */
    void slotConfirmedLsn(long lsn) {
        verbose.slotConfirmedLsn = lsn;
    }

    // ---- event loop side

    /** A source's onStarted: a connection is streaming (START_REPLICATION answered). */
    void started(LogicalReplicationStream stream) {
        current = stream;
        paused = false;
        startedNanos = System.nanoTime();
        verbose.started(stream, reconnecting);
        if (reconnecting != null) {
            stream.completion().whenComplete((v, e) -> {
                if (e != null && !stopRequested && CliErrors.unwrap(e) instanceof ReplicationException re && re.isTransient()) {
                    err.println("pgrepl: connection lost (" + CliErrors.oneLine(e) + "); reconnecting");
                }
            });
        }
    }

    void dataArrived() {
        lastDataNanos = System.nanoTime();
    }

    void snapshotBusy(java.util.function.BooleanSupplier busy) {
        snapshotBusy = busy;
    }

    void handOver(Object item, long bytes) {
        queuedBytes.addAndGet(bytes);
        queue.add(new Sized(item, bytes));
        applyBackpressure();
    }

    private record Sized(Object item, long bytes) {}

    /**
     * A snapshot worker's event loop, after handing lines over: waits while the printing thread is
     * behind. Nothing else runs on the workers meanwhile, and the replication connection must run
     * nothing until the copy is over, so waiting here is how the snapshot's memory stays bounded.
     */
    void waitForRoom(BooleanSupplier abandon) {
        while ((queue.size() > HIGH_ITEMS || queuedBytes.get() > HIGH_BYTES) && !abandon.getAsBoolean() && !stopRequested) {
            LockSupport.parkNanos(1_000_000);
        }
    }

    /** Event loop only: both decisions run there, so they apply in order. */
    private void applyBackpressure() {
        LogicalReplicationStream s = current;
        if (s == null) return;
        boolean full = queue.size() > HIGH_ITEMS || queuedBytes.get() > HIGH_BYTES;
        boolean low = queue.size() <= HIGH_ITEMS / 4 && queuedBytes.get() <= HIGH_BYTES / 4;
        if (!paused && full) {
            paused = true;
            s.pauseReading();
        } else if (paused && low) {
            paused = false;
            s.resumeReading();
        }
    }

    // ---- printing thread

    /** Asks the loop to stop after the item being written (a signal handler's call). */
    void requestStop() {
        stopRequested = true;
        SnapshotSource snap = snapshot;
        if (snap != null) snap.abort(); // an unfinished snapshot is of no use: it fails, and its slot goes
        HeldSlotStart start = singleStart;
        if (start != null) start.stop(); // a wait for a held slot ends now, not at its next ask
        queue.add(WAKE);
    }

    /** Types named as pgoutput's Type messages name them, for snapshot reads' lines ({@link UserTypeNames}). */
    private volatile Map<Integer, String> userTypeNames = Map.of();

    /** A column type's name in read lines: as the stream's lines name it. */
    String typeName(int oid) {
        String n = userTypeNames.get(oid);
        return n != null ? n : TypeNames.name(oid);
    }

    /**
     * Streams until a stop condition; returns the exit code. {@code conn} null: reconnecting
     * (without --snapshot; with it the snapshot runs on {@code conn} first).
     */
    int run(PgConnection conn, ConnectionConfig config) throws Exception {
        LogicalReplicationOptions options = settings.options();
        TxSource txSource = null;
        LogicalStreamHandler handler;
        // Acknowledgements from the transaction assembler go to whichever stream is running.
        LongConsumer ack = lsn -> {
            if (reconnecting != null) reconnecting.acknowledge(lsn);
            else if (current != null) current.acknowledge(lsn);
        };
        if (settings.format == StreamOptions.Format.JSON) {
            txSource = settings.incrementalReads() ? new IncrementalSource(this, ack, settings, err) : new TxSource(this, ack);
            if (!settings.acceptSignals) txSource.reportIgnoredSignals(err);
            handler = txSource instanceof IncrementalSource inc ? inc.engine(config) : txSource;
        } else {
            handler = new ProtocolSource(this).schemaChanges(settings.schemaChanges);
        }
        acknowledge = ack;
        if (config != null && settings.format == StreamOptions.Format.JSON && (settings.snapshot || settings.incrementalReads())) {
            userTypeNames = UserTypeNames.load(config);
        }
        if (settings.snapshot) snapshot = new SnapshotSource(this, verbose, settings.format == StreamOptions.Format.PROTOCOL);
        Signals.Registration signals = Main.ownsProcess ? Signals.install(verbose::warning, this::requestStop) : null;
        // Completes once streaming has started (after the snapshot with --snapshot), or with why not.
        CompletionStage<Void> started;
        if (snapshot != null) {
            started = startWithSnapshot(conn, config, options, handler);
        } else if (conn == null) {
            reconnecting = ReconnectingLogicalStream.start(config, options, handler, ReconnectPolicy.defaults());
            started = CompletableFuture.completedFuture(null);
        } else {
            singleStart = new HeldSlotStart(conn, options, handler, policy, err, s -> {
                single = s;
                current = s;
            });
            if (stopRequested) singleStart.stop(); // a signal that came before it existed
            started = singleStart.start();
        }
        started.whenComplete((v, e) -> {
            if (e != null) queue.add(END);
            else (reconnecting != null ? reconnecting.completion() : single.completion()).whenComplete((x, y) -> queue.add(END));
        });
        TxJson txJson = new TxJson(Boolean.TRUE.equals(settings.binary), settings.columnTypes,
                settings.signalTable == null ? null : settings.signalTable.contains(".") ? settings.signalTable : "public." + settings.signalTable);
        if (settings.schemaChanges) {
            txJson.schemaChanges(new io.pgrepl.client.schema.SchemaTracker(settings.publications), !settings.messagesForSchemaOnly);
        }
        boolean reachedEnd = false;
        boolean outputClosed = false;
        long lastFsync = System.nanoTime();
        try {
            // A stop after the snapshot's last line was queued still prints up to that line: the snapshot is complete.
            while (!stopRequested || (snapshot != null && !snapshotWritten && snapshot.ended())) {
                Object o = queue.poll(200, TimeUnit.MILLISECONDS);
                if (o == END) break;
                if (o == WAKE) continue;
                if (o instanceof Sized sized) {
                    queuedBytes.addAndGet(-sized.bytes);
                    long ackLsn = write(sized.item, txJson);
                    maybeResume();
                    if (ackLsn != 0 && settings.endLsn != 0 && Long.compareUnsigned(ackLsn, settings.endLsn) >= 0) {
                        reachedEnd = true;
                        break;
                    }
                } else if (o == null && settings.idleExit != null && idle()) {
                    break;
                }
                if (output.fsyncs() && System.nanoTime() - lastFsync >= settings.fsyncInterval.toNanos()) {
                    acknowledgeWritten();
                    lastFsync = System.nanoTime();
                }
                verbose.tick(current);
            }
            flushJson(txJson);
            acknowledgeWritten();
        } catch (Exception e) {
            if (snapshot != null && !snapshotWritten) {
                try {
                    abandonSnapshot(started); // the slot goes before the command exits
                } catch (Exception x) {
                    e.addSuppressed(x); // the write's failure is the cause to report
                }
                throw e;
            }
            if (!(e instanceof Output.Closed)) throw e;
            // The reader went away (| head): a clean end. The item being written is not acknowledged.
            unflushed = null;
            outputClosed = true;
            if (settings.verbose) verbose.warning("pgrepl: stdout closed by its reader; stopping");
        } finally {
            verbose.clear(); // the summary or the error takes the progress line's place
            if (signals != null) signals.stopping();
        }
        if (snapshot != null && !snapshotWritten) {
            releaseQueued();
            abandonSnapshot(started);
        }
        StreamCommand.await(started); // the stream's start failed: its cause
        CompletionStage<Void> stopped = reconnecting != null ? reconnecting.stop() : single.stop();
        try {
            StreamCommand.await(stopped);
            verbose.stopped(reconnecting != null ? reconnecting.acknowledgedLsn() : single.flushedLsn());
        } catch (Exception e) {
            if (!reachedEnd && !stopRequested && !outputClosed) throw e;
        } finally {
            releaseQueued();
            if (txSource != null) txSource.close();
        }
        if (txSource instanceof IncrementalSource inc) inc.requireNoFailures(); // the stream ended cleanly; the reads did not
        return 0;
    }

    /**
     * --snapshot: the library creates the slot with an exported snapshot and copies the tables on
     * {@code conn}, then streams from the slot's consistent point: on {@code conn}, or with
     * --reconnect on connections of its own (the slot is permanent then).
     */
    private CompletionStage<Void> startWithSnapshot(PgConnection conn, ConnectionConfig config, LogicalReplicationOptions options,
                                                    LogicalStreamHandler handler) {
        CreateSlotOptions slot = CreateSlotOptions.logical(settings.slot, "pgoutput").withTemporary(settings.temporary);
        if (Boolean.TRUE.equals(settings.twoPhase)) slot = slot.withTwoPhase(true);
        SnapshotOptions o = SnapshotOptions.of(options).withWorkers(settings.snapshotWorkers).withSlot(slot)
                .withKeepSlotOnFailure(settings.keepSlotOnFailure)
                .withProgress(verbose.showsProgress() ? verbose::snapshotProgress : null, Duration.ofSeconds(1));
        try {
            if (!settings.reconnect) {
                return InitialSnapshot.start(conn, InitialSnapshotMode.INITIAL, o, snapshot, handler).thenAccept(s -> single = s.stream());
            }
            return InitialSnapshot.copy(conn, o, snapshot).thenAccept(r -> {
                conn.close();
                reconnecting = ReconnectingLogicalStream.start(config, options.toBuilder().startLsn(r.consistentPoint()).build(),
                        handler, policy);
            });
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /**
     * Stopped (a signal, an output failure) or failed before the snapshot's last line was written:
     * the snapshot is failed if still running, and its end awaited, so that the library has dropped
     * the slot (unless --keep-slot-on-failure) before the command exits. Throws what to report.
     */
    private void abandonSnapshot(CompletionStage<Void> started) throws Exception {
        boolean ourAbort = snapshot.abort();
        try {
            started.toCompletableFuture().get(60, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException("the initial snapshot did not end within 60 s of being stopped; slot \"" + settings.slot
                    + "\" may be left behind");
        } catch (ExecutionException e) {
            Throwable cause = CliErrors.unwrap(e);
            String slot = settings.keepSlotOnFailure && !settings.temporary ? "slot \"" + settings.slot + "\" was kept"
                    : "slot \"" + settings.slot + "\" was dropped";
            if (cause instanceof SnapshotException se && se.kind() == SnapshotException.Kind.SLOT_EXISTS) throw se;
            if (stopRequested && ourAbort && cause instanceof SnapshotException se
                    && se.kind() == SnapshotException.Kind.HANDLER_FAILED) {
                throw new IllegalStateException("stopped before the initial snapshot was complete; " + slot, se);
            }
            throw new IllegalStateException("initial snapshot failed: " + CliErrors.oneLine(cause) + "; " + slot, cause);
        }
        // Not stopped, not failed, yet its end was never written: the stream ended (cannot happen before the snapshot's end).
        throw new IllegalStateException("the stream ended before the initial snapshot's last line was written");
    }

    /** Writes one handed-over item; returns the LSN it lets us confirm (0: none). */
    private long write(Object item, TxJson txJson) throws Exception {
        long ackLsn;
        if (item instanceof SnapshotSource.Lines l) {
            output.stream().write(l.utf8()); // snapshot rows: counted by the snapshot's progress, not as changes
            if (l.end()) snapshotWritten = true;
            if (l.end() || queue.isEmpty()) output.flush();
            return 0;
        }
        if (item instanceof IncrementalCheckpoint.TableEnd end) {
            // Its state covers every line before it: those are made durable first, as a commit's are.
            flushJson(txJson);
            output.flush();
            if (output.fsyncs()) output.fsync();
            acknowledgeWritten();
            end.store();
            return 0;
        }
        if (item instanceof ProtocolSource.Chunk c) {
            output.stream().write(c.text().getBytes(StandardCharsets.UTF_8));
            output.flush();
            verbose.printed(c.text());
            ackLsn = c.ackLsn();
            if (ackLsn != 0) written(ackLsn, null);
        } else {
            TxEvent e = (TxEvent) item;
            txJson.write(e, output.stream());
            if (e instanceof Transaction t) {
                t.close(); // its spill file, if any, is no longer needed
                verbose.transaction(txJson.changesWritten(), txJson.signalsWritten());
            }
            ackLsn = e.ackLsn();
            unflushed = e;
            // A backlog goes out in large writes; the last of a burst (or --end-lsn) at once.
            boolean end = settings.endLsn != 0 && Long.compareUnsigned(ackLsn, settings.endLsn) >= 0;
            if (queue.isEmpty() || end || txJson.buffered() >= JsonBytes.CHUNK / 2 || stopRequested) {
                flushJson(txJson);
            }
        }
        return ackLsn;
    }

    /** Rendered but not yet flushed: the latest such event (acknowledgements are cumulative). */
    private TxEvent unflushed;

    private void flushJson(TxJson txJson) throws Exception {
        if (unflushed == null) return;
        txJson.drain(output.stream());
        output.flush();
        TxEvent e = unflushed;
        unflushed = null;
        written(e.ackLsn(), e);
    }

    /** Written and flushed: acknowledged now, or at the next fsync for a file. */
    private void written(long lsn, TxEvent event) {
        if (output.fsyncs()) {
            // Acknowledgements are cumulative: the latest one stands for all before it.
            if (event != null) pendingAckEvent = event;
            else pendingAckLsn = Lsn.max(pendingAckLsn, lsn);
        } else if (event != null) {
            event.acknowledge(); // through the assembler: never past a kept PREPARE
        } else {
            acknowledge.accept(lsn);
        }
    }

    private void acknowledgeWritten() throws Exception {
        if (pendingAckLsn == 0 && pendingAckEvent == null) return;
        output.fsync();
        if (pendingAckEvent != null) pendingAckEvent.acknowledge();
        if (pendingAckLsn != 0) acknowledge.accept(pendingAckLsn);
        pendingAckLsn = 0;
        pendingAckEvent = null;
    }

    private boolean idle() {
        long started = startedNanos;
        if (started == 0 || !queue.isEmpty()) return false; // the clock starts when streaming does
        // A table being planned or waiting for the workload's open transactions sends nothing for a while:
        // that is not the quiet --idle-exit waits for (a loaded machine took seconds to plan one).
        if (snapshotBusy.getAsBoolean()) {
            lastDataNanos = System.nanoTime();
            return false;
        }
        long since = Math.max(started, lastDataNanos);
        return System.nanoTime() - since >= settings.idleExit.toNanos();
    }

    private void maybeResume() {
        if (!paused) return;
        LogicalReplicationStream s = current;
        if (s != null) s.eventLoop().execute(this::applyBackpressure);
    }

    /** Transactions handed over but not printed (a stop): their spill files go. */
    private void releaseQueued() {
        for (Object o; (o = queue.poll()) != null; ) {
            if (o instanceof Sized s && s.item instanceof Transaction t) t.close();
        }
    }
}
