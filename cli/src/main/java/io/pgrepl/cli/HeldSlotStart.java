package io.pgrepl.cli;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.LogicalStreamHandler;
import io.pgrepl.client.stream.ReconnectPolicy;
import io.pgrepl.client.stream.ReplicationSlotException;
import java.io.PrintStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * {@code pgrepl stream} without --reconnect: START_REPLICATION on the command's connection. A slot
 * held by another connection (55006: typically the walsender of a consumer that just went away,
 * until the server notices) is asked for again as the reconnecting stream does, by the same
 * {@link ReconnectPolicy}: its backoff, for up to its slot-in-use wait counted from the first
 * refusal. An error before the copy leaves the connection usable, so every ask goes on it. A stop
 * ends the wait at once rather than at the next ask.
 */
final class HeldSlotStart {
    private final PgConnection conn;
    private final LogicalReplicationOptions options;
    private final LogicalStreamHandler handler;
    private final ReconnectPolicy policy;
    private final PrintStream err;
    /** Each stream asked for, before its answer: the run's current stream. */
    private final Consumer<LogicalReplicationStream> asked;
    private final CompletableFuture<Void> started = new CompletableFuture<>();
    private volatile boolean stopped;
    private volatile boolean waiting;

    HeldSlotStart(PgConnection conn, LogicalReplicationOptions options, LogicalStreamHandler handler, ReconnectPolicy policy,
                  PrintStream err, Consumer<LogicalReplicationStream> asked) {
        this.conn = conn;
        this.options = options;
        this.handler = handler;
        this.policy = policy;
        this.err = err;
        this.asked = asked;
    }

    /** Asks for the slot; completes once a stream started, or with why not. */
    CompletionStage<Void> start() {
        ask(1, 0);
        return started;
    }

    /** A stop request (SIGINT, SIGTERM): ends a wait for the slot now. */
    void stop() {
        stopped = true;
        if (waiting) giveUp(null);
    }

    private void ask(int attempt, long refusedSince) {
        if (started.isDone()) return; // stopped while waiting
        LogicalReplicationStream s;
        try {
            s = conn.startLogical(options, handler);
        } catch (RuntimeException e) {
            started.completeExceptionally(e);
            return;
        }
        asked.accept(s);
        s.started().whenComplete((v, e) -> {
            if (e == null) {
                started.complete(null);
            } else if (!(CliErrors.unwrap(e) instanceof ReplicationSlotException se && se.condition() == ReplicationSlotException.Condition.IN_USE)) {
                started.completeExceptionally(e);
            } else {
                refused(se, attempt, refusedSince);
            }
        });
    }

    private void refused(ReplicationSlotException se, int attempt, long refusedSince) {
        long since = refusedSince != 0 ? refusedSince : System.nanoTime();
        long waitSeconds = policy.slotInUseWait().toSeconds();
        if (System.nanoTime() - since >= policy.slotInUseWait().toNanos()) {
            started.completeExceptionally(new IllegalStateException("replication slot \"" + options.slotName() + "\" is still in use by"
                    + " another connection after waiting " + waitSeconds + " s (" + CliErrors.oneLine(se) + "); stop the other"
                    + " consumer (pg_replication_slots.active_pid names its walsender) or use another slot", se));
            return;
        }
        if (refusedSince == 0) {
            err.println("pgrepl: replication slot \"" + options.slotName() + "\" is in use by another connection; waiting up to "
                    + waitSeconds + " s for it (a consumer that just went away holds it until the server notices)");
        }
        waiting = true;
        if (stopped) {
            giveUp(se);
            return;
        }
        CompletableFuture.delayedExecutor(policy.delay(attempt).toMillis(), TimeUnit.MILLISECONDS).execute(() -> ask(attempt + 1, since));
    }

    private void giveUp(Throwable cause) {
        started.completeExceptionally(new IllegalStateException("stopped while waiting for replication slot \"" + options.slotName()
                + "\", in use by another connection", cause));
    }
}
