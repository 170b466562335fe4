package io.pgrepl.client.stream;

import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoop;
import io.pgrepl.client.PgClientException;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.PgException;
import io.pgrepl.client.internal.ExchangeContext;
import io.pgrepl.client.internal.Frontend;
import io.pgrepl.client.replication.ReplicationCommands;
import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.PgTime;
import io.pgrepl.codec.backend.DataRow;
import io.pgrepl.codec.backend.ErrorFields;
import io.pgrepl.codec.replication.PrimaryKeepalive;
import io.pgrepl.codec.replication.StandbyStatusUpdate;
import io.pgrepl.codec.replication.XLogData;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The START_REPLICATION conversation shared by logical and physical streams: the command,
 * ErrorResponse or CopyBothResponse, CopyData ('w' XLogData, 'k' keepalive), status updates
 * (sent when {@link StatusTimer} says), pause/resume of reading, and the three ways out (client
 * CopyDone, server CopyDone at a timeline end, server CommandComplete/ErrorResponse/EOF).
 * Everything here runs on the connection's event loop; public methods hop onto it. The
 * connection sees a {@link CopyBothExchange}, not the stream, so that the internal exchange
 * methods stay off the public streams' API.
 */
abstract class CopyBothStream {
    private static final Logger log = LoggerFactory.getLogger(CopyBothStream.class);

    enum State { QUEUED, STARTING, STREAMING, CLIENT_DONE, SERVER_DONE, ENDING, DONE }

    final PgConnection connection;
    final EventLoop loop;
    private final String command;
    /** When status updates go out and how long a silent server is trusted. */
    final StatusTimer timer;
    final CompletableFuture<Void> started = new CompletableFuture<>();
    final CompletableFuture<Void> completion = new CompletableFuture<>();
    private final XLogData xlog = new XLogData();
    private final PrimaryKeepalive keepalive = new PrimaryKeepalive();
    private final DataRow dataRow = new DataRow();
    private ExchangeContext ctx;
    State state = State.QUEUED;
    private boolean stopRequested;
    private Throwable failure;
    private long statusUpdatesSent;
    boolean paused;
    /** A read below this many bytes means the client is ahead of the server: reading pauses for {@link #coalesceNanos}. */
    static final int COALESCE_BELOW_BYTES = 32 * 1024;
    private final long coalesceNanos;
    /** Reading is off until {@link #endCoalescing} (a pause of ours, not the application's). */
    private boolean coalescing;
    /** Socket reads while streaming: what coalescing saves shows here (event loop). */
    private long socketReads;
    /** Physical end of timeline: the row after the server's CopyDone. */
    long nextTimeline = -1;
    long switchLsn = Lsn.INVALID;

    CopyBothStream(PgConnection connection, String command, Duration statusInterval, Duration receiveTimeout,
                   Duration readCoalescing) {
        this.connection = connection;
        this.coalesceNanos = readCoalescing.toNanos();
        this.loop = connection.eventLoop();
        this.command = command;
        this.timer = new StatusTimer(this, statusInterval, receiveTimeout);
    }

    // ---- subclass hooks (event loop)

    abstract void onXLogData(XLogData x) throws Exception;

    abstract void onKeepalive(PrimaryKeepalive k);

    /** The write and flush positions for the next status update: two longs packed by the caller's fields. */
    abstract long writePosition(long flush);

    abstract long nextFlushPosition();

    /** Called once, on the event loop, when the stop decision is made (client stop or failure). */
    void onStopDecided() {}

    /** After each status update went out. */
    void afterStatusUpdate() {}

    // ---- the conversation, driven by CopyBothExchange on the event loop

    void start(ExchangeContext ctx) {
        this.ctx = ctx;
        state = State.STARTING;
        timer.received();
        log.debug("{}", command);
        ctx.writeAndFlush(Frontend.query(ctx.alloc(), command));
    }

    /** A notice while this stream's exchange is active; the connection's listener gets it too. */
    void onNotice(ErrorFields notice) {}

    /** Any frame: the silence clock restarts and a pending ping is answered. */
    void received() {
        timer.received();
    }

    /**
     * One socket read is over and its frames were delivered. The walsender writes each change on
     * its own, so a client that keeps up wakes, reads 1-2 KiB and sends an ACK many thousand times
     * a second: that, not decoding, was most of a drain's CPU. After a small read, reading
     * pauses briefly and the next read takes what arrived meanwhile in one go (the socket buffers
     * it; the walsender does not wait). A large read means we are behind: no pause then.
     */
    void readComplete(int bytesRead) {
        if (state == State.STREAMING) socketReads++;
        if (coalesceNanos == 0 || state != State.STREAMING || paused || coalescing || bytesRead >= COALESCE_BELOW_BYTES) return;
        coalescing = true;
        ctx.channel().config().setAutoRead(false);
        loop.schedule(this::endCoalescing, coalesceNanos, TimeUnit.NANOSECONDS);
    }

    /** Our pause is over; an application's pause, or the stream's end, meanwhile has the last word. */
    private void endCoalescing() {
        if (!coalescing) return;
        coalescing = false;
        if (paused || state == State.DONE) return;
        ctx.channel().config().setAutoRead(true); // which reads
    }

    void fail(Throwable cause) {
        timer.cancel();
        if (state == State.DONE) return;
        Throwable t = failure != null ? failure
                : CopyBothExchange.classify(cause, state == State.STARTING || state == State.QUEUED);
        state = State.DONE;
        started.completeExceptionally(t);
        completion.completeExceptionally(t);
    }

    void onCopyBoth() {
        state = State.STREAMING;
        timer.start();
        if (paused) ctx.channel().config().setAutoRead(false);
        started.complete(null);
        if (stopRequested) sendCopyDone();
    }

    void onCopyData(ByteBuf payload) throws Exception {
        if (state == State.DONE || state == State.ENDING) return;
        if (!payload.isReadable()) throw protocol("empty CopyData");
        byte kind = payload.getByte(payload.readerIndex());
        if (kind == XLogData.TYPE) {
            if (failure != null) return; // failed: draining until the server acknowledges the CopyDone
            onXLogData(xlog.wrap(payload));
        } else if (kind == PrimaryKeepalive.TYPE) {
            keepalive.wrap(payload);
            onKeepalive(keepalive);
            if (keepalive.replyRequested() && state == State.STREAMING) timer.replyToKeepalive();
        } else {
            // Unknown CopyData kinds are skipped: a newer server may add some, and none carries data we must confirm.
            log.debug("skipping CopyData of unknown kind 0x{}", Integer.toHexString(kind & 0xff));
        }
    }

    void onServerCopyDone() {
        // Logical: the answer to our CopyDone. Physical: end of a timeline; answer with ours.
        if (state == State.STREAMING) {
            decideStop();
            ctx.writeAndFlush(Frontend.copyDone(ctx.alloc()));
        }
        state = State.SERVER_DONE;
    }

    void onError(PgException e) {
        // An ErrorResponse ends copy mode both ways: no CopyDone from us. ReadyForQuery (ERROR) or EOF (FATAL) follows.
        boolean beforeCopy = state == State.STARTING;
        decideStop();
        if (failure == null) failure = ReplicationServerErrorException.classify(e, beforeCopy);
        state = State.ENDING;
    }

    void onCommandComplete() {
        if (state == State.STREAMING) {
            // CommandComplete inside copy mode without CopyDone: the walsender is shutting down.
            decideStop();
            if (failure == null) failure = new ReplicationShutdownException("the walsender ended the stream (server shutdown)");
            state = State.ENDING;
        }
        // After CopyDone (COPY 0, then START_REPLICATION's own tag): nothing to do.
    }

    void onDataRow(ByteBuf payload) {
        dataRow.wrap(payload);
        if (dataRow.columnCount() >= 2 && !dataRow.isNull(0) && !dataRow.isNull(1)) {
            nextTimeline = ReplicationCommands.timelineColumn("next_tli", dataRow.text(0));
            switchLsn = ReplicationCommands.lsnColumn("next_tli_startpos", dataRow.text(1));
        }
    }

    void finish() {
        timer.cancel();
        if (paused || coalescing) {
            paused = false;
            coalescing = false;
            ctx.channel().config().setAutoRead(true); // the connection goes on to serve other commands
        }
        State before = state;
        state = State.DONE;
        if (failure != null) {
            started.completeExceptionally(failure);
            completion.completeExceptionally(failure);
        } else {
            if (before == State.STARTING) started.complete(null); // physical: COPY skipped at an old timeline's end
            completion.complete(null);
        }
    }

    /** Gives up on the connection: it is closed, the stream fails with {@code cause}. */
    void failNow(ReplicationException cause) {
        decideStop();
        if (failure == null) failure = cause;
        ctx.channel().close();
    }

    // ---- outgoing

    final void sendStatusUpdate(boolean replyRequested) {
        if (state != State.STREAMING) return;
        long flush = nextFlushPosition();
        long write = writePosition(flush);
        ByteBuf b = ctx.alloc().ioBuffer(5 + StandbyStatusUpdate.LENGTH);
        Frontend.copyDataHeader(b, StandbyStatusUpdate.LENGTH);
        StandbyStatusUpdate.encode(b, write, flush, flush, PgTime.nowMicros(), replyRequested);
        ctx.writeAndFlush(b);
        timer.sent();
        statusUpdatesSent++;
        afterStatusUpdate();
        if (log.isTraceEnabled()) log.trace("status update write={} flush={}", Lsn.format(write), Lsn.format(flush));
    }

    private void sendCopyDone() {
        if (state != State.STREAMING) return;
        sendStatusUpdate(false); // report the last acknowledgements before the decision freezes them
        decideStop();
        state = State.CLIENT_DONE;
        ctx.writeAndFlush(Frontend.copyDone(ctx.alloc()));
    }

    private boolean stopDecided;

    final void decideStop() {
        if (!stopDecided) {
            stopDecided = true;
            onStopDecided();
        }
    }

    /** Stops because the application's code failed: CopyDone, drain, then fail with {@code cause}. */
    final void failFromHandler(Throwable cause) {
        if (failure == null) failure = cause instanceof ReplicationException re ? re : new ReplicationHandlerException(cause);
        if (state == State.STREAMING) {
            decideStop();
            state = State.CLIENT_DONE;
            ctx.writeAndFlush(Frontend.copyDone(ctx.alloc()));
        }
    }

    /**
     * Queues the START_REPLICATION exchange; {@code onStarted} runs on the event loop when copy
     * mode begins (an exception there stops the stream as a handler failure).
     */
    final void submit(Runnable onStarted) {
        started.thenRun(() -> {
            try {
                onStarted.run();
            } catch (RuntimeException e) {
                failFromHandler(e);
            }
        });
        connection.submit(new CopyBothExchange(this));
    }

    // ---- public face (any thread), shared by the logical and physical streams

    /**
     * Completes when the server entered copy mode.
     *
     * @return the start; fails like {@link #completion()} if the server refuses START_REPLICATION
     */
    public CompletionStage<Void> started() {
        return started;
    }

    /**
     * Completes normally after {@link #stop} once the server ended copy mode and sent
     * ReadyForQuery (the connection is then free for other commands), or, for a physical stream,
     * at the end of a timeline; fails with a {@link ReplicationException} subclass when the
     * server or the connection ended the stream: {@link ReplicationServerErrorException}
     * (ErrorResponse, e.g. FATAL 57P01 from pg_terminate_backend), {@link ReplicationShutdownException}
     * (clean server shutdown), {@link ReplicationConnectionLostException} (EOF, e.g. after
     * wal_sender_timeout, or the receive timeout), {@link ReplicationProtocolException} (pgoutput
     * that does not decode, a frame over {@code maxFrameSize}, broken framing; never transient),
     * {@link ReplicationHandlerException}.
     *
     * @return the stream's end
     */
    public CompletionStage<Void> completion() {
        return completion;
    }

    /**
     * Client-initiated end: a last status update, CopyDone, then reading on until the server's
     * CopyDone, CommandComplete and ReadyForQuery. In-flight messages may still reach the handler;
     * nothing new is confirmed. Returns {@link #completion()}.
     *
     * @return {@link #completion()}
     */
    public CompletionStage<Void> stop() {
        return stopAsync();
    }

    /**
     * Stops reading from the socket (autoRead off); status updates go on from the timer. The
     * receive timeout is suspended while paused and counts afresh from {@link #resumeReading}.
     */
    public void pauseReading() {
        setPaused(true);
    }

    /** Reads from the socket again after {@link #pauseReading()}; the receive timeout starts afresh. */
    public void resumeReading() {
        setPaused(false);
    }

    /** Sends a status update now (any thread). */
    public void requestStatusUpdate() {
        runOnLoop(() -> sendStatusUpdate(false));
    }

    /**
     * Sends a status update that asks the server to reply (any thread): the walsender answers with
     * a keepalive at once, telling how far it has sent, even when the database is idle.
     */
    public void requestKeepalive() {
        runOnLoop(() -> sendStatusUpdate(true));
    }

    /**
     * {@return the connection the stream runs on; it is free for commands again once {@link #completion()} completed normally}
     */
    public PgConnection connection() {
        return connection;
    }

    /** {@return the event loop that runs the handler's callbacks} */
    public EventLoop eventLoop() {
        return loop;
    }

    // ---- public face helpers (any thread)

    final void runOnLoop(Runnable r) {
        if (loop.inEventLoop()) r.run();
        else loop.execute(r);
    }

    final CompletionStage<Void> stopAsync() {
        runOnLoop(() -> {
            stopRequested = true;
            if ((paused || coalescing) && ctx != null) {
                // The server's answer must be read to finish.
                paused = false;
                coalescing = false;
                timer.received();
                ctx.channel().config().setAutoRead(true);
                ctx.channel().read();
            }
            if (state == State.STREAMING) sendCopyDone();
        });
        return completion;
    }

    final void setPaused(boolean pause) {
        runOnLoop(() -> {
            if (paused && !pause) timer.received();
            paused = pause;
            coalescing = false; // the application decides now
            if (ctx == null || state == State.DONE) return;
            ctx.channel().config().setAutoRead(!pause);
            if (!pause) ctx.channel().read();
        });
    }

    final boolean isPaused() {
        return paused;
    }

    /** {@return socket reads while streaming; read on the event loop or after the stream completed} */
    final long socketReads() {
        return socketReads;
    }

    final long statusUpdatesSent() {
        return statusUpdatesSent;
    }

    final boolean isStreaming() {
        return state == State.STREAMING;
    }

    private static PgClientException protocol(String what) {
        return new PgClientException(PgClientException.Kind.PROTOCOL, "protocol violation: " + what);
    }
}
