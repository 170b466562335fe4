package io.pgrepl.client.stream;

import io.pgrepl.client.PgClientException;
import io.pgrepl.client.replication.WalSenderCommands;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.schema.SchemaTracker;
import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.backend.ErrorFields;
import io.pgrepl.codec.pgoutput.PgOutputDecoder;
import io.pgrepl.codec.pgoutput.PgOutputMessageType;
import io.pgrepl.codec.pgoutput.PgOutputState;
import io.pgrepl.codec.replication.PrimaryKeepalive;
import io.pgrepl.codec.replication.XLogData;
import java.util.function.LongConsumer;

/**
 * A running START_REPLICATION ... LOGICAL stream on one {@link PgConnection}: pgoutput messages go
 * to a {@link LogicalStreamHandler} on the event loop, decoded in place from the receive buffer.
 *
 * <p>Threading: {@link #acknowledge}, {@link #pauseReading}, {@link #resumeReading},
 * {@link #stop}, {@link #requestStatusUpdate} are safe from any thread (they hop onto the event
 * loop). Keepalives asking for a reply are answered on the event loop as they arrive, and a status
 * update goes out every {@code statusInterval} from an event-loop timer, paused or not.
 *
 * <p>Confirmation: the flush position sent to the server is the highest LSN passed to
 * {@link #acknowledge} (or, when nothing is outstanding, a keepalive's WAL end; see
 * {@link LogicalReplicationOptions.Builder#confirmIdleKeepalives}). It never goes down, and
 * nothing new is confirmed once {@link #stop} was called.
 *
 * <p>Resuming and duplicates: the server resends from the slot's persisted confirmed_flush_lsn,
 * which can be older than what was confirmed: on 10-16 even a clean fast shutdown loses a
 * confirmation made after the last checkpoint (observed; 17+ keep it across a clean shutdown),
 * and after a crash any version can resend.
 * The {@linkplain #dedupFloor() de-duplication floor} is {@code max(startLsn, resumeFrom)}
 * (resumeFrom: the acknowledged position a reconnect resumes from). What is at or below it was
 * processed before and is skipped here, on the event loop, before the handler sees it:
 * <ul>
 *   <li>plain transactions: decided at Begin (final_lsn below the floor, so commit end_lsn at or
 *       below it); Begin, changes, Origin and Commit are all withheld. Relation/Type still arrive:
 *       the decoder needs them;</li>
 *   <li>Begin Prepare … Prepare likewise by prepare LSN; Commit Prepared by commit LSN, Rollback
 *       Prepared and non-transactional messages by their end/message LSN;</li>
 *   <li><b>streamed (in-progress) transactions are not skipped</b>: Stream Start blocks arrive
 *       before anything tells their commit position, and a streamed transaction's blocks are
 *       resent from its first change. Only its Stream Commit (or Stream Prepare) carries the
 *       commit/end LSN. A handler that buffers streamed changes must therefore drop the
 *       transaction at Stream Commit when {@code endLsn <= dedupFloor()} (equivalently commitLsn
 *       below it), and on {@link LogicalStreamHandler#onStarted} (each new connection, e.g. with
 *       {@link ReconnectingLogicalStream}) discard every streamed transaction left open by the
 *       previous connection: the server starts it again from its first block.</li>
 * </ul>
 */
public final class LogicalReplicationStream extends CopyBothStream {
    private final LogicalReplicationOptions options;
    private final LogicalStreamHandler handler;
    private final PgOutputDecoder decoder;
    private final FeedbackTracker tracker;
    private final DedupDispatcher dispatcher;
    private final int protoVersion;
    private final long dedupFloor;
    /** Told every acknowledgement applied here, from any source (see {@link ReconnectingLogicalStream}). */
    private final LongConsumer ackListener;
    private volatile StreamMetricsListener metricsListener;
    private volatile long acknowledgedView;
    private volatile long flushedView;
    private volatile StreamMetrics lastMetrics;
    private long messages;
    private long bytes;
    private long serverWalEnd;

    private LogicalReplicationStream(PgConnection connection, LogicalReplicationOptions options, String command,
                                     LogicalStreamHandler handler, long resumeFrom, LongConsumer ackListener,
                                     SchemaTracker schema) {
        super(connection, command, options.statusInterval(), options.receiveTimeout(), options.readCoalescing());
        this.options = options;
        this.handler = handler;
        this.protoVersion = options.effectiveProtoVersion(connection.serverVersionNum());
        this.decoder = new PgOutputDecoder(new PgOutputState());
        this.dedupFloor = Lsn.max(options.startLsn(), resumeFrom);
        this.tracker = new FeedbackTracker(options.confirmIdleKeepalives(), resumeFrom);
        this.acknowledgedView = resumeFrom;
        this.ackListener = ackListener;
        if (schema != null) schema.newConnection();
        this.dispatcher = new DedupDispatcher(handler, tracker, dedupFloor, this::delivered,
                schema != null ? schema : new SchemaTracker(options.publicationNames()));
    }

    /**
     * Validates the options against the connection's server version, queues START_REPLICATION
     * and returns the stream at once. {@link #started()} completes on CopyBothResponse, or fails
     * with {@link ReplicationServerErrorException} (beforeCopy: the connection stays usable).
     * Option errors throw {@link PgClientException} here, before anything is sent.
     *
     * @param connection a connection opened with {@code replication=database}, idle
     * @param options    the slot, publications and pgoutput options
     * @param handler    receives the messages on the connection's event loop
     * @return the stream, not yet started
     * @throws PgClientException if an option is invalid or unsupported by the server, or the connection is not a logical walsender
     */
    public static LogicalReplicationStream start(PgConnection connection, LogicalReplicationOptions options,
                                                 LogicalStreamHandler handler) {
        return start(connection, options, handler, Lsn.INVALID);
    }

    /**
     * As {@link #start(PgConnection, LogicalReplicationOptions, LogicalStreamHandler)}, resuming
     * after a reconnect: {@code resumeFrom} is taken as already acknowledged (it is reported as
     * flush) and transactions committed at or below it are skipped.
     *
     * @param connection a connection opened with {@code replication=database}, idle
     * @param options    the slot, publications and pgoutput options
     * @param handler    receives the messages on the connection's event loop
     * @param resumeFrom the LSN already acknowledged before the reconnect, or 0
     * @return the stream, not yet started
     */
    public static LogicalReplicationStream start(PgConnection connection, LogicalReplicationOptions options,
                                                 LogicalStreamHandler handler, long resumeFrom) {
        return start(connection, options, handler, resumeFrom, null);
    }

    /** With {@code ackListener} told (event loop) every acknowledgement applied: acknowledge() and autoAcknowledge. */
    static LogicalReplicationStream start(PgConnection connection, LogicalReplicationOptions options,
                                          LogicalStreamHandler handler, long resumeFrom, LongConsumer ackListener) {
        return start(connection, options, handler, resumeFrom, ackListener, null);
    }

    /** And with the schema tracker of earlier connections, so shapes they delivered are not announced again (null: a new one). */
    static LogicalReplicationStream start(PgConnection connection, LogicalReplicationOptions options,
                                          LogicalStreamHandler handler, long resumeFrom, LongConsumer ackListener,
                                          SchemaTracker schema) {
        WalSenderCommands.require(connection.config().replication(), "START_REPLICATION ... LOGICAL", true);
        String command = options.startCommand(connection.serverVersionNum());
        LogicalReplicationStream s = new LogicalReplicationStream(connection, options, command, handler, resumeFrom,
                ackListener, schema);
        s.submit(() -> handler.onStarted(s));
        return s;
    }

    // ---- public face

    /**
     * The application has durably processed everything up to {@code lsn} (normally a commit's
     * end LSN). Any thread. Lower values than before are ignored.
     *
     * @param lsn the end LSN of the last transaction made durable
     */
    public void acknowledge(long lsn) {
        if (loop.inEventLoop()) {
            ack(lsn);
        } else {
            loop.execute(() -> ack(lsn));
        }
    }

    /** {@return the options the stream was started with} */
    public LogicalReplicationOptions options() {
        return options;
    }

    /**
     * The pgoutput protocol version sent (AUTO resolved).
     *
     * @return the proto_version in START_REPLICATION
     */
    public int protoVersion() {
        return protoVersion;
    }

    /**
     * The relation/type caches of this session (event loop only).
     *
     * @return the decoder's state
     */
    public PgOutputState decoderState() {
        return decoder.state();
    }

    /**
     * The tracker that turns this stream's Relation and DDL capture messages into
     * {@link io.pgrepl.client.schema.SchemaChange}s, holding the shape last delivered per table
     * (event loop only). Shared by the connections of a {@link ReconnectingLogicalStream}.
     *
     * @return the tracker
     */
    public SchemaTracker schemaTracker() {
        return dispatcher.schema();
    }

    /**
     * Transactions ending at or below this position are duplicates of ones processed before:
     * {@code max(startLsn, resumeFrom)}, or 0 for none. The stream skips plain and prepared ones
     * itself; a streamed transaction is delivered and must be dropped at its Stream Commit by a
     * handler that buffers it (see the class comment).
     *
     * @return the LSN, or 0
     */
    public long dedupFloor() {
        return dedupFloor;
    }

    /** {@return the highest position acknowledged by the application (any thread)} */
    public long acknowledgedLsn() {
        return acknowledgedView;
    }

    /** {@return the last flush position sent to the server in a Standby Status Update (any thread)} */
    public long flushedLsn() {
        return flushedView;
    }

    /**
     * Sets the listener told of a metrics snapshot at each status update, on the event loop.
     *
     * @param listener the listener, or null for none
     */
    public void metricsListener(StreamMetricsListener listener) {
        this.metricsListener = listener;
    }

    /**
     * A fresh snapshot on the event loop; elsewhere the one taken at the last status update (or null before any).
     *
     * @return the counters and positions, or null
     */
    public StreamMetrics metrics() {
        return loop.inEventLoop() ? snapshot() : lastMetrics;
    }

    /**
     * Ends the stream with {@code cause}, as a failing handler would (CopyDone, drain, then
     * {@link #completion()} fails with it), also when called before copy mode began or while
     * reading is paused; the slot guard's hook. Any thread.
     *
     * @param cause why the stream must stop; never transient
     */
    public void fail(SlotGuardTrippedException cause) {
        java.util.Objects.requireNonNull(cause, "cause");
        runOnLoop(() -> {
            failFromHandler(cause);
            // Also a stop request: one made before copy mode sends CopyDone as it begins, and a paused
            // stream reads again to see the server's answer.
            stopAsync();
        });
    }

    // ---- event loop

    private void ack(long lsn) {
        tracker.acknowledge(lsn);
        long acked = tracker.acknowledged();
        acknowledgedView = acked;
        if (ackListener != null) ackListener.accept(acked);
    }

    @Override
    void onXLogData(XLogData x) {
        long walStart = x.walStart();
        tracker.received(walStart);
        serverWalEnd = Lsn.max(serverWalEnd, x.walEnd());
        messages++;
        bytes += x.dataLength();
        try {
            handler.onXLogData(x);
        } catch (RuntimeException e) {
            failFromHandler(e);
            return;
        }
        if (dispatcher.takesRawChanges() && isRowChange(x)) {
            try {
                dispatcher.onRawChange(x.buffer(), x.dataIndex(), x.dataLength());
            } catch (RuntimeException e) {
                failFromHandler(e);
            }
            return;
        }
        dispatcher.dispatched = false;
        try {
            decoder.decode(x.buffer(), x.dataIndex(), x.dataLength(), dispatcher);
        } catch (MalformedMessageException e) {
            // The decoder dispatches last: before that, the bytes are at fault; after, the handler
            // (which may decode values itself) threw.
            failFromHandler(dispatcher.dispatched ? e : new ReplicationProtocolException(e));
        } catch (RuntimeException e) {
            failFromHandler(e);
        }
    }

    private static boolean isRowChange(XLogData x) {
        if (x.dataLength() < 1) return false;
        byte type = x.buffer().getByte(x.dataIndex());
        return type == PgOutputMessageType.INSERT || type == PgOutputMessageType.UPDATE || type == PgOutputMessageType.DELETE;
    }

    /**
     * PostgreSQL 18's pgoutput streams on without a publication it cannot load, saying so only in
     * a WARNING; ending the stream on it is what 10-17 do with their ERROR, so nothing the dropped
     * publication covered is silently left out, on any connection (the user's listener still sees it).
     */
    @Override
    void onNotice(ErrorFields notice) {
        if (SkippedPublicationWarning.matches(notice, options.publicationNames())) {
            org.slf4j.LoggerFactory.getLogger(LogicalReplicationStream.class).warn("slot {}: {}; ending the stream", options.slotName(), notice);
            failNow(SkippedPublicationWarning.error(notice));
        }
    }

    @Override
    void onKeepalive(PrimaryKeepalive k) {
        serverWalEnd = Lsn.max(serverWalEnd, k.walEnd());
        tracker.keepalive(k.walEnd());
        try {
            handler.onKeepalive(k);
        } catch (RuntimeException e) {
            failFromHandler(e);
        }
    }

    @Override
    long nextFlushPosition() {
        long f = tracker.nextFlush();
        flushedView = f;
        return f;
    }

    @Override
    long writePosition(long flush) {
        return tracker.write(flush);
    }

    @Override
    void onStopDecided() {
        tracker.freeze();
    }

    @Override
    void afterStatusUpdate() {
        StreamMetrics m = snapshot();
        lastMetrics = m;
        StreamMetricsListener l = metricsListener;
        if (l != null) {
            try {
                l.onMetrics(m);
            } catch (RuntimeException e) {
                org.slf4j.LoggerFactory.getLogger(LogicalReplicationStream.class).warn("metrics listener failed", e);
            }
        }
    }

    private StreamMetrics snapshot() {
        long end = Lsn.max(serverWalEnd, tracker.serverWalEnd());
        long flushed = tracker.sentFlush();
        long lag = end != 0 && Long.compareUnsigned(end, flushed) > 0 ? end - flushed : 0;
        return new StreamMetrics(messages, bytes, dispatcher.transactions, tracker.received(), end, tracker.acknowledged(), flushed,
                lag, (System.nanoTime() - timer.lastReceiveNanos()) / 1_000_000, statusUpdatesSent());
    }

    private void delivered(long lsn) {
        if (options.autoAcknowledge()) ack(lsn);
    }
}
