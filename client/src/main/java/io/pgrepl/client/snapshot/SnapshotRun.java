package io.pgrepl.client.snapshot;

import io.netty.channel.Channel;
import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgClientException;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.PgException;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.replication.SlotCreated;
import io.pgrepl.client.replication.SnapshotMode;
import io.pgrepl.codec.copy.CopyOutDecoder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * One initial snapshot, start to end. The replication connection creates the slot with an
 * exported snapshot and then runs nothing until the copy is over (the export would end); the
 * first worker imports the snapshot, reads the catalog inside it and plans the units; the other
 * workers import it too, then all take units (largest table first) from one queue. The first
 * failure closes every worker at once (their transactions end with their sessions) and drops the
 * slot unless it is a permanent one the caller asked to keep.
 */
final class SnapshotRun {
    private record Unit(SnapshotTable table, long fromPage, long toPage) {}

    private final PgConnection replication;
    private final SnapshotOptions options;
    private final SnapshotHandler handler;
    private final Object handlerLock = new Object();
    private final List<PgConnection> workers = new CopyOnWriteArrayList<>();
    private final List<Channel> channels = new CopyOnWriteArrayList<>();
    private final AtomicReference<SnapshotException> failure = new AtomicReference<>();
    private final ConcurrentLinkedQueue<Unit> queue = new ConcurrentLinkedQueue<>();
    private final Map<SnapshotTable, AtomicInteger> unitsLeft = new ConcurrentHashMap<>();
    private final Set<String> dropped = ConcurrentHashMap.newKeySet();
    private final LongAdder rows = new LongAdder();
    private final AtomicInteger tablesDone = new AtomicInteger();
    private volatile boolean paused;
    private volatile List<SnapshotTable> tables = List.of();
    private volatile SlotCreated slot;
    /** existingSlot: the session whose transaction exported the snapshot, open until the copy ends. */
    private volatile PgConnection exporter;
    private long startNanos;
    private long rowsEstimate;

    SnapshotRun(PgConnection replication, SnapshotOptions options, SnapshotHandler handler) {
        this.replication = replication;
        this.options = options;
        this.handler = handler;
    }

    CompletionStage<SnapshotResult> run() {
        if (replication.config().replication() != ReplicationMode.DATABASE) {
            return CompletableFuture.failedFuture(new IllegalArgumentException("an initial snapshot needs a replication=database connection"));
        }
        startNanos = System.nanoTime();
        CompletableFuture<SnapshotResult> result = new CompletableFuture<>();
        CompletionStage<SlotCreated> begun = options.existingSlot() ? exportSnapshot()
                : replication.createReplicationSlot(options.slot().withSnapshot(SnapshotMode.EXPORT));
        begun.handle((created, e) -> {
            if (e != null) {
                PgConnection x = exporter;
                if (x != null) x.close();
                result.completeExceptionally(options.existingSlot()
                        ? new SnapshotException(SnapshotException.Kind.FAILED, "exporting a snapshot failed: "
                                + unwrap(e).getMessage(), null, unwrap(e))
                        : slotFailure(unwrap(e)));
                return null;
            }
            slot = created;
            copy(created).whenComplete((r, err) -> {
                PgConnection x = exporter;
                if (x != null) x.close();
                if (err == null) {
                    result.complete(r);
                    return;
                }
                fail(classify(unwrap(err), null));
                cleanup(created).whenComplete((v, ignored) -> result.completeExceptionally(failure.get()));
            });
            return null;
        });
        return result;
    }

    /**
     * existingSlot: a snapshot exported by an ordinary REPEATABLE READ transaction, which stays open
     * (the export lives as long as it) until the workers are done; its WAL position stands in for a
     * consistent point. No slot is created.
     */
    private CompletionStage<SlotCreated> exportSnapshot() {
        ConnectionConfig cfg = workerConfig();
        return PgConnection.connect(cfg).thenCompose(c -> {
            exporter = c;
            return c.simpleQuery("SET statement_timeout = 0; SET idle_in_transaction_session_timeout = 0;"
                    + " BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SELECT pg_catalog.pg_export_snapshot(),"
                    + " (CASE WHEN pg_catalog.pg_is_in_recovery() THEN pg_catalog.pg_last_wal_replay_lsn()"
                    + " ELSE pg_catalog.pg_current_wal_insert_lsn() END)::text").thenApply(results -> {
                        var row = results.get(results.size() - 1).singleRow();
                        return new SlotCreated(options.slot().slotName(), io.pgrepl.codec.Lsn.parse(row.get(1)), row.get(0),
                                "pgoutput");
                    });
        });
    }

    private SnapshotException slotFailure(Throwable e) {
        if (e instanceof PgException pg && "42710".equals(pg.sqlState())) {
            return new SnapshotException(SnapshotException.Kind.SLOT_EXISTS, "replication slot \"" + options.slot().slotName()
                    + "\" exists already: an exported snapshot exists only at slot creation (nothing was copied; the slot"
                    + " is untouched)", null, e);
        }
        return new SnapshotException(SnapshotException.Kind.FAILED, "creating the slot failed: " + e.getMessage(), null, e);
    }

    private CompletionStage<SnapshotResult> copy(SlotCreated created) {
        return openWorker(created.snapshotName()).thenCompose(first -> {
            int major = first.serverMajor();
            return first.query(SnapshotCatalog.tablesSql(options.stream().publicationNames(), major)).thenCompose(t -> {
                Map<Integer, SnapshotCatalog.Published> published = SnapshotCatalog.tables(t);
                return first.query(SnapshotCatalog.columnsSql(List.copyOf(published.keySet()), major))
                        .thenApply(c -> SnapshotCatalog.build(published, c, major));
            }).thenCompose(list -> {
                tables = list;
                int units = plan(list, major);
                synchronized (handlerLock) {
                    try {
                        handler.onStart(created.consistentPoint(), list);
                    } catch (RuntimeException | Error e) {
                        throw new CopyOutExchange.HandlerFailure(e);
                    }
                    for (SnapshotTable table : list) {
                        if (!table.hasReplicaIdentity()) {
                            handler.onWarning(new SnapshotWarning(SnapshotWarning.Kind.NO_REPLICA_IDENTITY, table.qualifiedName(),
                                    noReplicaIdentity(table)));
                        }
                    }
                }
                List<CompletableFuture<PgConnection>> more = new ArrayList<>();
                for (int i = 1; i < Math.min(options.workers(), units); i++) {
                    more.add(openWorker(created.snapshotName()).toCompletableFuture());
                }
                // Every worker has imported the snapshot once these complete.
                return CompletableFuture.allOf(more.toArray(CompletableFuture[]::new));
            }).thenCompose(v -> {
                ScheduledFuture<?> ticker = startProgress();
                List<CompletableFuture<Void>> loops = new ArrayList<>();
                for (PgConnection w : workers) loops.add(loop(w, created.consistentPoint()).toCompletableFuture());
                return CompletableFuture.allOf(loops.toArray(CompletableFuture[]::new)).whenComplete((x, e) -> {
                    if (ticker != null) ticker.cancel(false);
                });
            });
        }).thenCompose(v -> {
            List<CompletableFuture<Void>> ends = new ArrayList<>();
            for (PgConnection w : workers) {
                ends.add(w.query("COMMIT").thenCompose(r -> w.closeAsync()).toCompletableFuture());
            }
            return CompletableFuture.allOf(ends.toArray(CompletableFuture[]::new));
        }).thenApply(v -> {
            List<String> copied = tables.stream().map(SnapshotTable::qualifiedName).filter(n -> !dropped.contains(n)).toList();
            SnapshotResult r = new SnapshotResult(created.slotName(), created.consistentPoint(), created.snapshotName(), copied,
                    rows.sum());
            reportProgress(true);
            synchronized (handlerLock) {
                try {
                    handler.onEnd(r);
                } catch (RuntimeException | Error e) {
                    throw new CopyOutExchange.HandlerFailure(e);
                }
            }
            return r;
        });
    }

    private ConnectionConfig workerConfig() {
        return options.workerConfig() != null ? options.workerConfig()
                : replication.config().toBuilder().replication(ReplicationMode.NONE)
                        // Named after the replication session, so the workers are easy to find in pg_stat_activity.
                        .applicationName((replication.config().applicationName() != null
                                ? replication.config().applicationName() : "pgrepl") + "-snapshot").build();
    }

    private CompletionStage<PgConnection> openWorker(String snapshotName) {
        ConnectionConfig cfg = workerConfig();
        return PgConnection.connect(cfg).thenCompose(c -> {
            workers.add(c);
            if (failure.get() != null) c.close();
            // lock_timeout is left as the user set it: a lock wait then fails naming the table.
            return c.simpleQuery("SET statement_timeout = 0; SET idle_in_transaction_session_timeout = 0;"
                    + " BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET TRANSACTION SNAPSHOT "
                    + SnapshotCatalog.literal(snapshotName)).thenApply(r -> c);
        });
    }

    /** Queues the units, largest table first; returns how many. */
    private int plan(List<SnapshotTable> list, int major) {
        int n = 0;
        for (SnapshotTable t : list) {
            List<Unit> units = new ArrayList<>();
            // TID Range Scan (14+) makes a ctid range read only its pages; before, it would scan the whole table per unit.
            if (major >= 14 && !t.partitionedRoot() && t.pages() > options.unitPages()) {
                for (long from = 0; from < t.pages(); from += options.unitPages()) {
                    long to = from + options.unitPages();
                    units.add(new Unit(t, from, to >= t.pages() ? -1 : to)); // the last range is open-ended
                }
            } else {
                units.add(new Unit(t, 0, -1));
            }
            unitsLeft.put(t, new AtomicInteger(units.size()));
            rowsEstimate += t.rowsEstimate();
            queue.addAll(units);
            n += units.size();
        }
        return n;
    }

    private CompletionStage<Void> loop(PgConnection w, long lsn) {
        if (failure.get() != null) return CompletableFuture.completedFuture(null);
        Unit u = queue.poll();
        if (u == null) return CompletableFuture.completedFuture(null);
        String name = u.table().qualifiedName();
        return w.query("SAVEPOINT pgrepl_unit")
                .thenCompose(x -> copyUnit(w, u, lsn))
                .thenCompose(copied -> w.query("RELEASE SAVEPOINT pgrepl_unit"))
                .handle((released, e) -> {
                    if (e == null) {
                        unitDone(u);
                        return CompletableFuture.<Void>completedFuture(null);
                    }
                    Throwable cause = unwrap(e);
                    if (cause instanceof PgException pg && "42P01".equals(pg.sqlState())) {
                        return w.query("ROLLBACK TO SAVEPOINT pgrepl_unit").thenRun(() -> {
                            if (dropped.add(name)) {
                                synchronized (handlerLock) {
                                    handler.onWarning(new SnapshotWarning(SnapshotWarning.Kind.TABLE_DROPPED, name,
                                            "table " + name + " was dropped during the snapshot: skipped"));
                                }
                            }
                            unitDone(u);
                        });
                    }
                    SnapshotException ex = classify(cause, name);
                    fail(ex);
                    return CompletableFuture.<Void>failedFuture(ex);
                })
                .thenCompose(s -> s)
                .thenCompose(v -> loop(w, lsn));
    }

    private CompletionStage<Long> copyUnit(PgConnection w, Unit u, long lsn) {
        String sql = SnapshotCatalog.copySql(u.table(), u.fromPage(), u.toPage(), options.binary());
        Channel[] own = new Channel[1];
        CopyOutDecoder.RowHandler rowHandler = row -> {
            try {
                synchronized (handlerLock) {
                    if (failure.get() == null) handler.onRead(row, lsn);
                }
            } catch (RuntimeException | Error e) {
                throw new CopyOutExchange.HandlerFailure(e);
            }
            rows.increment();
            // A pause asked for from another worker's event loop reaches this one only after its read
            // loop (up to 16 reads); stopping our own reads here keeps the overshoot to one read.
            if (paused && own[0].config().isAutoRead()) own[0].config().setAutoRead(false);
        };
        CopyOutExchange x = new CopyOutExchange(sql, u.table().relation(), options.binary(), new CopyOutDecoder(), rowHandler, ch -> {
            own[0] = ch;
            if (!channels.contains(ch)) channels.add(ch);
            ch.config().setAutoRead(!paused);
        });
        w.submit(x);
        return x.future();
    }

    private void unitDone(Unit u) {
        if (unitsLeft.get(u.table()).decrementAndGet() == 0) tablesDone.incrementAndGet();
    }

    /** Pauses or resumes reading on every worker socket (the reactive face's demand). */
    void paused(boolean p) {
        paused = p;
        for (Channel ch : channels) {
            if (ch.eventLoop().inEventLoop()) ch.config().setAutoRead(!paused);
            else ch.eventLoop().execute(() -> ch.config().setAutoRead(!paused));
        }
    }

    /** Fails the snapshot from outside (a cancelled subscriber). */
    void cancel() {
        fail(new SnapshotException(SnapshotException.Kind.FAILED, "the snapshot was cancelled", null, null));
    }

    private void fail(SnapshotException e) {
        if (failure.compareAndSet(null, e)) {
            for (PgConnection w : workers) w.close();
        }
    }

    private CompletionStage<Void> cleanup(SlotCreated created) {
        List<CompletableFuture<Void>> closes = new ArrayList<>();
        for (PgConnection w : workers) closes.add(w.closeAsync().toCompletableFuture());
        return CompletableFuture.allOf(closes.toArray(CompletableFuture[]::new)).thenCompose(v -> {
            if (options.existingSlot() || (!options.slot().temporary() && options.keepSlotOnFailure())) {
                return CompletableFuture.completedFuture(null);
            }
            return replication.dropReplicationSlot(created.slotName(), false).exceptionally(e -> null);
        });
    }

    private SnapshotException classify(Throwable e, String table) {
        if (e instanceof SnapshotException s) return s;
        String on = table == null ? "" : " of " + table;
        if (e instanceof CopyOutExchange.HandlerFailure) {
            return new SnapshotException(SnapshotException.Kind.HANDLER_FAILED, "the snapshot handler failed", table, e.getCause());
        }
        if (e instanceof PgException pg) {
            if ("55P03".equals(pg.sqlState())) {
                return new SnapshotException(SnapshotException.Kind.LOCK_TIMEOUT, "lock_timeout expired waiting for a lock on table "
                        + table + " (another session holds a conflicting lock)", table, e);
            }
            if (pg.isFatal()) {
                return new SnapshotException(SnapshotException.Kind.CONNECTION_LOST, "worker session ended during the COPY" + on
                        + ": " + pg.getMessage(), table, e);
            }
            if (table == null) {
                // Not inside a unit: importing the snapshot or reading the catalog.
                return new SnapshotException(SnapshotException.Kind.FAILED, "snapshot setup failed: " + pg.getMessage(), null, e);
            }
            return new SnapshotException(SnapshotException.Kind.COPY_FAILED, "COPY" + on + " failed: " + pg.getMessage(), table, e);
        }
        if (e instanceof PgClientException pc && pc.kind() == PgClientException.Kind.CONNECTION) {
            return new SnapshotException(SnapshotException.Kind.CONNECTION_LOST, "worker connection lost during the COPY" + on, table, e);
        }
        return new SnapshotException(SnapshotException.Kind.FAILED, "snapshot failed" + on + ": " + e, table, e);
    }

    private ScheduledFuture<?> startProgress() {
        if (options.progress() == null) return null;
        long ms = options.progressInterval().toMillis();
        return replication.eventLoop().scheduleAtFixedRate(() -> reportProgress(false), ms, ms, TimeUnit.MILLISECONDS);
    }

    private void reportProgress(boolean finished) {
        if (options.progress() == null) return;
        double secs = Math.max(1e-9, (System.nanoTime() - startNanos) / 1e9);
        long done = rows.sum();
        options.progress().onProgress(new SnapshotProgress(tablesDone.get(), tables.size(), done, rowsEstimate, done / secs, finished));
    }

    static Throwable unwrap(Throwable e) {
        while (e instanceof CompletionException && e.getCause() != null) e = e.getCause();
        return e;
    }

    SlotCreated slot() {
        return slot;
    }

    /**
     * The server refuses such a table's UPDATE and DELETE while a publication publishes them (it has
     * no key to write for the old row); the remedies are PostgreSQL's, with what each costs.
     */
    static String noReplicaIdentity(SnapshotTable table) {
        String t = io.pgrepl.client.replication.Identifiers.quoteIdentifier(table.relation().schema()) + "."
                + io.pgrepl.client.replication.Identifiers.quoteIdentifier(table.relation().name());
        return "table " + table.qualifiedName() + " has no replica identity, so the server refuses its updates and deletes"
                + " while a publication publishes them; give it one: a primary key, or ALTER TABLE " + t
                + " REPLICA IDENTITY USING INDEX name (a unique, non-partial, non-deferrable index on NOT NULL columns;"
                + " no extra WAL), or ALTER TABLE " + t + " REPLICA IDENTITY FULL (every update and delete writes the whole"
                + " old row to the WAL)";
    }
}
