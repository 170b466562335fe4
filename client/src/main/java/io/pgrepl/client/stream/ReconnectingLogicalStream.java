package io.pgrepl.client.stream;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.codec.Lsn;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A logical stream that survives transient ends ({@link ReplicationException#isTransient()}:
 * connection lost, server shutdown, 57P01): it reconnects with {@link ReconnectPolicy} backoff
 * and starts again from the last acknowledged LSN; transactions committed at or below it are
 * skipped when the server resends them. A slot held by another connection (55006) is retried up
 * to {@link ReconnectPolicy#slotInUseWait()}; a missing or invalidated slot and a missing
 * publication end the stream at once ({@link ReplicationSlotException},
 * {@link ReplicationPublicationException}). Each connection checks that every publication exists
 * before START_REPLICATION, and a publication dropped while streaming ends the stream too: PostgreSQL
 * 18 only sends a WARNING ("skipped loading publication", 55000) and would stream on without it,
 * so the stream takes that notice as the same typed, non-transient error 10-17 raise.
 *
 * <p>The acknowledged position is kept with the WAL history it belongs to ({@link WalOrigin}:
 * IDENTIFY_SYSTEM's system identifier and timeline, asked on every connection). After a failover
 * to a promoted standby (a later timeline of the same cluster) only the part up to the switch
 * point in the new timeline's history still skips resent transactions: without
 * {@code synchronized_standby_slots} the client may have acknowledged WAL the standby never
 * received, and the new primary's own transactions at those LSNs must not be dropped. That case is
 * logged as a warning naming the range. On another cluster, or an earlier timeline, nothing
 * acknowledged before is used: the slot's own position decides (duplicates rather than losses).
 *
 * <p>The handler sees {@link LogicalStreamHandler#onStarted} once per connection; anything it
 * received but did not acknowledge before a break is delivered again. Relation caches start empty
 * on each connection (the server re-sends Relation messages); schema changes are tracked across
 * connections, so a resent Relation that repeats a shape already delivered is not announced again. Methods are thread-safe.
 */
public final class ReconnectingLogicalStream {
    private static final Logger log = LoggerFactory.getLogger(ReconnectingLogicalStream.class);

    private final ConnectionConfig config;
    private final LogicalReplicationOptions options;
    private final LogicalStreamHandler handler;
    private final ReconnectPolicy policy;
    /**
     * One for all connections (used on each one's event loop in turn, never two at once): each new
     * walsender sends every table's Relation again, and a shape already delivered is no change.
     */
    private final io.pgrepl.client.schema.SchemaTracker schema;
    private final AtomicLong acknowledged = new AtomicLong();
    private final CompletableFuture<Void> completion = new CompletableFuture<>();
    private volatile LogicalReplicationStream current;
    private volatile boolean stopping;
    private volatile boolean paused;
    /** Set by {@link #fail}: the run ends with it instead of completing normally. */
    private volatile SlotGuardTrippedException failure;
    private volatile int reconnects;
    private int failedAttempts;
    /** nanoTime of the first 55006 in the current run of failures; 0 = none. */
    private long slotInUseSince;
    /** The server the last started stream ran on; a missing slot elsewhere means a failover. */
    private volatile io.pgrepl.client.config.HostSpec streamedFrom;
    /** The WAL history of the last stream that started: what {@link #acknowledged} refers to. */
    private volatile WalOrigin origin;

    private ReconnectingLogicalStream(ConnectionConfig config, LogicalReplicationOptions options,
                                      LogicalStreamHandler handler, ReconnectPolicy policy) {
        this.config = config;
        this.options = options;
        this.handler = handler;
        this.policy = policy;
        this.schema = new io.pgrepl.client.schema.SchemaTracker(options.publicationNames());
        acknowledged.set(options.startLsn());
    }

    /**
     * Connects and starts; problems surface through {@link #completion()}.
     *
     * @param config  where to connect, with {@code replication=database}; used for every attempt
     * @param options the slot, publications and pgoutput options; a reconnect resumes from what was acknowledged
     * @param handler receives the messages of every connection in turn, on its event loop
     * @param policy  backoff between attempts and how long a held slot is waited for
     * @return the stream, connecting
     */
    public static ReconnectingLogicalStream start(ConnectionConfig config, LogicalReplicationOptions options,
                                                  LogicalStreamHandler handler, ReconnectPolicy policy) {
        ReconnectingLogicalStream r = new ReconnectingLogicalStream(config, options, handler, policy);
        r.attempt();
        return r;
    }

    /**
     * Durable up to {@code lsn}: remembered across reconnects and sent to the current server.
     * Acknowledging through {@link #current()} or with autoAcknowledge is remembered the same way.
     *
     * @param lsn the end LSN of the last transaction made durable
     */
    public void acknowledge(long lsn) {
        acknowledged.accumulateAndGet(lsn, Lsn::max);
        LogicalReplicationStream s = current;
        if (s != null) s.acknowledge(lsn);
    }

    /** {@return the highest position acknowledged, over all connections; a reconnect resumes from it} */
    public long acknowledgedLsn() {
        return acknowledged.get();
    }

    /**
     * The stream of the current connection, or null between connections.
     *
     * @return the current stream, or null
     */
    public LogicalReplicationStream current() {
        return current;
    }

    /** {@return how many reconnect attempts were scheduled after a failed connection or stream} */
    public int reconnects() {
        return reconnects;
    }

    /** Stops reading from the socket, now and after a reconnect, until {@link #resumeReading()} (back-pressure). */
    public void pauseReading() {
        paused = true;
        LogicalReplicationStream s = current;
        if (s != null) s.pauseReading();
    }

    /** Reads from the socket again after {@link #pauseReading()}. */
    public void resumeReading() {
        paused = false;
        LogicalReplicationStream s = current;
        if (s != null) s.resumeReading();
    }

    /**
     * Completes when stopped cleanly; fails with the first non-transient error or when attempts run out.
     *
     * @return the end of the whole run, over all reconnects
     */
    public CompletionStage<Void> completion() {
        return completion;
    }

    /**
     * Stops the current stream cleanly (CopyDone) and closes its connection; no more reconnects.
     *
     * @return {@link #completion()}
     */
    public CompletionStage<Void> stop() {
        stopping = true;
        LogicalReplicationStream s = current;
        if (s == null) {
            completion.complete(null);
        } else {
            s.stop();
        }
        return completion;
    }

    /**
     * Ends the whole run with {@code cause}, never retried: the current stream stops (CopyDone)
     * and {@link #completion()} fails with it; between connections, at once. The slot guard's hook.
     *
     * @param cause why the stream must stop
     */
    public void fail(SlotGuardTrippedException cause) {
        failure = java.util.Objects.requireNonNull(cause, "cause");
        stopping = true;
        LogicalReplicationStream s = current;
        if (s == null) {
            completion.completeExceptionally(cause);
        } else {
            s.fail(cause);
        }
    }

    private void end() {
        SlotGuardTrippedException f = failure;
        if (f != null) {
            completion.completeExceptionally(f);
        } else {
            completion.complete(null);
        }
    }

    private void attempt() {
        if (stopping) {
            end();
            return;
        }
        PgConnection.connect(config).whenComplete((conn, err) -> {
            if (err != null) {
                retry(err);
                return;
            }
            SlotChecks.publicationsExist(conn, options.publicationNames())
                    .thenCompose(ok -> conn.identifySystem())
                    .thenCompose(id -> {
                        WalOrigin to = new WalOrigin(id.systemId(), id.timeline());
                        WalOrigin from = origin;
                        if (from == null || from.equals(to) || !from.systemId().equals(to.systemId())
                                || to.timeline() < from.timeline()) {
                            return CompletableFuture.completedFuture(new Rekey(from, to, null));
                        }
                        // Promoted since: where the old timeline ended decides what still counts.
                        return conn.timelineHistory(to.timeline()).handle((h, e) -> new Rekey(from, to,
                                h == null ? null : new String(h.content(), java.nio.charset.StandardCharsets.UTF_8)));
                    })
                    .whenComplete((rekey, failed) -> {
                        if (failed != null) {
                            conn.close();
                            retry(failed);
                        } else {
                            startOn(conn, rekey);
                        }
                    });
        });
    }

    /** The WAL history of the last stream ({@code from}) and of this connection, with the latter's timeline history if fetched. */
    private record Rekey(WalOrigin from, WalOrigin to, String history) {}

    private void startOn(PgConnection conn, Rekey rekey) {
        long before = acknowledged.get();
        long floor = acknowledged.updateAndGet(a -> WalOrigin.carryOver(a, rekey.from(), rekey.to(), rekey.history()));
        if (floor != before) {
            log.warn("replication slot {}: {} is on timeline {} of system {}, and the acknowledged position {} was on timeline"
                    + " {} of system {}; resent transactions are skipped only up to {}: transactions acknowledged after it"
                    + " may not exist there (synchronized_standby_slots on the old primary prevents this)",
                    options.slotName(), conn.config().host() + ":" + conn.config().port(), rekey.to().timeline(),
                    rekey.to().systemId(), Lsn.format(before), rekey.from().timeline(), rekey.from().systemId(),
                    Lsn.format(floor));
        }
        LogicalReplicationStream s;
        try {
            // Acknowledgements made through the inner stream (autoAcknowledge, the stream handed
            // to onStarted) come back here, so a reconnect resumes from them.
            s = LogicalReplicationStream.start(conn, options, handler, acknowledged.get(),
                    lsn -> acknowledged.accumulateAndGet(lsn, Lsn::max), schema);
        } catch (RuntimeException e) {
            conn.close();
            completion.completeExceptionally(e); // option validation: retrying cannot help
            return;
        }
        current = s;
        // An acknowledge() between reading resumeFrom and publishing current reached no stream.
        s.acknowledge(acknowledged.get());
        if (paused) s.pauseReading();
        s.started().thenRun(() -> {
            streamedFrom = conn.server();
            origin = rekey.to();
            synchronized (this) {
                failedAttempts = 0;
                slotInUseSince = 0;
            }
        });
        s.completion().whenComplete((v, e) -> {
            current = null;
            if (e == null || stopping) {
                conn.close();
                end();
                return;
            }
            Throwable cause = unwrap(e);
            if (streamedFrom != null && !streamedFrom.equals(conn.server())
                    && cause instanceof ReplicationServerErrorException se && "42704".equals(se.sqlState())) {
                // The slot streamed on another server of the list and is missing here: a failover to a server without it.
                conn.close();
                completion.completeExceptionally(new SlotLostAfterFailoverException(options.slotName(),
                        conn.config().host() + ":" + conn.config().port(), streamedFrom.host() + ":" + streamedFrom.port(),
                        conn.serverMajor(), acknowledged.get(), se));
                return;
            }
            if (cause instanceof ReplicationSlotException se && se.condition() == ReplicationSlotException.Condition.UNUSABLE
                    && conn.isOpen()) {
                // 55000 does not say why; the catalog does (the connection survives an error before copy).
                SlotChecks.explain(conn, options.slotName(), se).whenComplete((explained, ignored) -> {
                    conn.close();
                    retry(explained != null ? explained : se);
                });
                return;
            }
            conn.close();
            retry(cause);
        });
        if (stopping) s.stop();
    }

    private static Throwable unwrap(Throwable error) {
        return error instanceof java.util.concurrent.CompletionException && error.getCause() != null ? error.getCause() : error;
    }

    private void retry(Throwable error) {
        Throwable cause = unwrap(error);
        boolean transientError = cause instanceof ReplicationException re ? re.isTransient()
                : cause instanceof io.pgrepl.client.PgClientException pce
                        ? pce.kind() == io.pgrepl.client.PgClientException.Kind.CONNECTION
                                || pce.kind() == io.pgrepl.client.PgClientException.Kind.TIMEOUT
                        : cause instanceof io.pgrepl.client.PgException pe
                                ? ReplicationServerErrorException.classify(pe, true).isTransient()
                                : cause instanceof java.io.IOException;
        int attempt;
        boolean waitForSlot = false;
        synchronized (this) {
            attempt = ++failedAttempts;
            if (cause instanceof ReplicationSlotException se && se.condition() == ReplicationSlotException.Condition.IN_USE) {
                long now = System.nanoTime();
                if (slotInUseSince == 0) slotInUseSince = now;
                waitForSlot = now - slotInUseSince < policy.slotInUseWait().toNanos();
            } else {
                slotInUseSince = 0;
            }
        }
        boolean retryable = transientError || waitForSlot;
        // Waiting for a held slot is bounded by its own deadline, not by maxAttempts.
        boolean attemptsLeft = waitForSlot || policy.maxAttempts() == 0 || attempt <= policy.maxAttempts();
        if (stopping || !retryable || !attemptsLeft) {
            SlotGuardTrippedException f = failure;
            completion.completeExceptionally(f != null ? f : cause);
            return;
        }
        long delay = policy.delay(attempt).toMillis();
        log.warn("replication stream for slot {} ended ({}); reconnecting in {} ms (attempt {})", options.slotName(),
                cause.toString(), delay, attempt);
        reconnects++;
        CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS).execute(this::attempt);
    }
}
