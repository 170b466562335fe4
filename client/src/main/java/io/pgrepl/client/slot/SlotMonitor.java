package io.pgrepl.client.slot;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.QueryResult;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.Row;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.LinkedHashSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Polls the server's own views for replication slots every {@code interval}, over a separate ordinary
 * connection ({@code replication} forced off; the role needs {@code pg_monitor}, or superuser, to see
 * other roles' walsenders), and hands each poll to its {@link SlotHealthListener}s as immutable
 * {@link SlotHealth} snapshots.
 *
 * <p>Threading: polls run on one daemon thread the monitor owns; the query itself is asynchronous on
 * the connection's event loop, and listeners are called back on the monitor's thread, never on an
 * event loop. A poll that does not answer within {@code queryTimeout} counts as failed and its
 * connection is closed. A failed poll is reported ({@link SlotHealthListener#onMonitorError}) and the
 * next one reconnects; the first success after failures is reported too.
 *
 * <p>Time lag: {@link SlotHealth#lagSeconds()} is the server's {@code replay_lag} for the slot's
 * walsender (how long ago the WAL the client last confirmed was written). The server measures it
 * only when the client confirms something new, so a connected consumer that stopped confirming
 * shows the last measure (and later NULL), not a growing age: alert on {@link SlotHealth#lagBytes()}
 * and {@link SlotHealth#safeWalSize()}, which the server computes on every read.
 */
public final class SlotMonitor implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SlotMonitor.class);

    private final ConnectionConfig config;
    private final Set<String> slots;
    private final Duration interval;
    private final Duration queryTimeout;
    private final List<SlotHealthListener> listeners = new CopyOnWriteArrayList<>();
    private final ScheduledExecutorService thread;
    private volatile List<SlotHealth> latest = List.of();
    private volatile boolean closed;
    private volatile Thread pollThread;
    /** The monitoring connection, being opened or open; null after a failure. Monitor thread only. */
    private CompletableFuture<PgConnection> connection;
    private int failures; // monitor thread only

    private SlotMonitor(Builder b) {
        this.config = b.config.toBuilder().replication(ReplicationMode.NONE)
                .applicationName(b.config.applicationName() == null || b.config.applicationName().equals("pgrepl")
                        ? "pgrepl-slot-monitor" : b.config.applicationName())
                .build();
        this.slots = Set.copyOf(b.slots);
        this.interval = b.interval;
        this.queryTimeout = b.queryTimeout != null ? b.queryTimeout : Duration.ofMillis(Math.max(5000, b.interval.toMillis()));
        this.listeners.addAll(b.listeners);
        this.thread = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "pgrepl-slot-monitor");
            t.setDaemon(true);
            pollThread = t;
            return t;
        });
    }

    /**
     * @param config where to connect; {@code replication} is ignored (an ordinary connection is opened)
     * @return a builder
     */
    public static Builder builder(ConnectionConfig config) {
        return new Builder(config);
    }

    /**
     * Starts polling now, then every interval.
     *
     * @return this monitor
     */
    public SlotMonitor start() {
        thread.execute(this::poll);
        return this;
    }

    /**
     * Adds a listener (called from the next poll on).
     *
     * @param listener the listener
     */
    public void addListener(SlotHealthListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /** @param listener a listener added before; no longer called */
    public void removeListener(SlotHealthListener listener) {
        listeners.remove(listener);
    }

    /** {@return the last successful poll, ordered by slot name; empty before the first} */
    public List<SlotHealth> latest() {
        return latest;
    }

    /**
     * @param slot a slot name
     * @return the slot at the last successful poll, or null
     */
    public SlotHealth latest(String slot) {
        for (SlotHealth h : latest) {
            if (h.slotName().equals(slot)) return h;
        }
        return null;
    }

    /** {@return the slots monitored; empty means all} */
    public Set<String> slots() {
        return slots;
    }

    /** {@return the poll interval} */
    public Duration interval() {
        return interval;
    }

    /**
     * Polls once more now (for a caller that must not wait for the interval, e.g. before a decision).
     *
     * @return completes on the monitor's thread with the poll's slots, or fails like the poll
     */
    public CompletableFuture<List<SlotHealth>> pollNow() {
        CompletableFuture<List<SlotHealth>> f = new CompletableFuture<>();
        thread.execute(() -> query().whenComplete((r, e) -> {
            if (e != null) f.completeExceptionally(e);
            else f.complete(r);
        }));
        return f;
    }

    /** Stops polling and closes the monitoring connection. Listeners are not called after it returns. */
    @Override
    public void close() {
        closed = true;
        thread.execute(this::dropConnection);
        thread.shutdown();
        if (Thread.currentThread() == pollThread) return; // from a listener: the poll in progress ends the thread
        try {
            thread.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---- monitor thread

    private void poll() {
        if (closed) return;
        query().whenComplete((slotsRead, error) -> {
            if (closed) return;
            if (error != null) {
                failures++;
                log.warn("slot monitor: poll failed ({} in a row): {}", failures, error.toString());
                for (SlotHealthListener l : listeners) {
                    try {
                        l.onMonitorError(error, failures);
                    } catch (RuntimeException e) {
                        log.warn("slot monitor listener failed", e);
                    }
                }
            } else {
                boolean recovered = failures > 0;
                failures = 0;
                if (recovered) log.info("slot monitor: polling again after a failure");
                for (SlotHealthListener l : listeners) {
                    try {
                        if (recovered) l.onMonitorRecovered();
                        l.onHealth(slotsRead);
                    } catch (RuntimeException e) {
                        log.warn("slot monitor listener failed", e);
                    }
                }
            }
            if (!closed) {
                try {
                    thread.schedule(this::poll, interval.toMillis(), TimeUnit.MILLISECONDS);
                } catch (java.util.concurrent.RejectedExecutionException ignored) {
                    // closed meanwhile
                }
            }
        });
    }

    /** One query, connecting first if needed; completes on the monitor's thread. */
    private CompletableFuture<List<SlotHealth>> query() {
        if (connection != null && connection.isDone() && !connection.isCompletedExceptionally() && !connection.join().isOpen()) {
            // Closed between polls (terminated, server restart, network): this poll reports it, the next reconnects.
            dropConnection();
            return CompletableFuture.failedFuture(new io.pgrepl.client.PgClientException(
                    io.pgrepl.client.PgClientException.Kind.CONNECTION, "the monitoring connection was closed; reconnecting"));
        }
        if (connection == null) connection = PgConnection.connect(config).toCompletableFuture();
        CompletableFuture<List<SlotHealth>> result = connection.thenCompose(c -> {
            int major = c.serverMajor();
            return c.query(SlotQueries.sql(major, slots)).toCompletableFuture().thenApply(r -> read(r, major));
        }).orTimeout(queryTimeout.toMillis(), TimeUnit.MILLISECONDS);
        CompletableFuture<List<SlotHealth>> onThread = new CompletableFuture<>();
        result.whenComplete((r, e) -> {
            try {
                thread.execute(() -> {
                    if (e != null) dropConnection(); // a timed-out or broken connection is not reused
                    if (e != null) onThread.completeExceptionally(e instanceof java.util.concurrent.CompletionException
                            && e.getCause() != null ? e.getCause() : e);
                    else onThread.complete(r);
                });
            } catch (java.util.concurrent.RejectedExecutionException closedMeanwhile) {
                onThread.cancel(false);
            }
        });
        return onThread;
    }

    private void dropConnection() {
        CompletableFuture<PgConnection> c = connection;
        connection = null;
        if (c != null) c.thenAccept(PgConnection::close);
    }

    private List<SlotHealth> read(QueryResult r, int major) {
        List<SlotHealth> out = new ArrayList<>(r.rows().size());
        for (Row row : r.rows()) out.add(SlotQueries.read(row, major));
        List<SlotHealth> list = List.copyOf(out);
        latest = list;
        return list;
    }

    /** How a {@link SlotMonitor} is made. */
    public static final class Builder {
        private final ConnectionConfig config;
        private final Set<String> slots = new LinkedHashSet<>();
        private final List<SlotHealthListener> listeners = new ArrayList<>();
        private Duration interval = Duration.ofSeconds(10);
        private Duration queryTimeout;

        private Builder(ConnectionConfig config) {
            this.config = Objects.requireNonNull(config, "config");
        }

        /**
         * Monitors this slot (may be called again for more); none named means every slot of the server.
         *
         * @param name a slot name
         * @return this builder
         */
        public Builder slot(String name) {
            SlotQueries.checkSlotName(name);
            slots.add(name);
            return this;
        }

        /**
         * @param every how often to poll (default 10 s; at least 100 ms)
         * @return this builder
         */
        public Builder interval(Duration every) {
            if (every.toMillis() < 100) throw new IllegalArgumentException("interval below 100 ms: " + every);
            this.interval = every;
            return this;
        }

        /**
         * @param timeout how long a poll may take before it counts as failed (default max(5 s, interval))
         * @return this builder
         */
        public Builder queryTimeout(Duration timeout) {
            if (timeout.isNegative() || timeout.isZero()) throw new IllegalArgumentException("timeout must be positive");
            this.queryTimeout = timeout;
            return this;
        }

        /**
         * @param listener called after each poll
         * @return this builder
         */
        public Builder listener(SlotHealthListener listener) {
            listeners.add(Objects.requireNonNull(listener, "listener"));
            return this;
        }

        /** {@return the monitor, not yet polling (see {@link SlotMonitor#start()})} */
        public SlotMonitor build() {
            return new SlotMonitor(this);
        }
    }
}
