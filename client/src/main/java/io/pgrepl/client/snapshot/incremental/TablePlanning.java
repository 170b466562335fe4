package io.pgrepl.client.snapshot.incremental;

import java.util.List;
import java.util.concurrent.CompletionStage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A table's way from asked for to its first chunk (event loop of the stream only): planned on the
 * first worker's connection ({@link PlannedTable}), checked against a saved state and the capture
 * scope, its tree's other relations adopted, tracking started, then held PLANNING until the server
 * says which commits linger; transient failures are tried again after a pause. Apart from
 * {@link Engine}, which schedules the tables and emits their chunks, because none of this runs once
 * a table is under way.
 */
final class TablePlanning {
    private static final Logger log = LoggerFactory.getLogger(IncrementalSnapshots.class);
    /**
     * Planning attempts of one table before a transient failure (a lock not granted within
     * lock_timeout, a serialization failure, a lost connection) fails it; between them a pause of
     * {@link #PLAN_RETRY_MS} doubled per failure, at most {@link #PLAN_RETRY_MAX_MS}: some 30 s in all.
     */
    static final int MAX_PLAN_ATTEMPTS = 8;
    private static final long PLAN_RETRY_MS = 200;
    private static final long PLAN_RETRY_MAX_MS = 10_000;
    private final Engine engine;

    TablePlanning(Engine engine) {
        this.engine = engine;
    }

    void plan(TableRun t) {
        t.planning = true;
        CompletionStage<ChunkReader> first = engine.workers.openReader();
        first.thenCompose(r -> PlannedTable.plan(r.connection(), engine.publications, t, engine.options.workersPerTable()))
                .whenComplete((p, e) -> engine.loop.execute(() -> planned(t, first, p, e)));
    }

    private void planned(TableRun t, CompletionStage<ChunkReader> first, PlannedTable p, Throwable e) {
        if (engine.tables.get(t.name) != t) {
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
            engine.fail(t, stale);
            return;
        }
        String keyWhy = p.table() == null ? null : excludedKey(p.table());
        if (keyWhy != null) {
            // Before anything of the plan is kept: the progress carries no estimate either.
            first.thenAccept(r -> r.connection().close());
            engine.tables.remove(t.name);
            engine.updateState();
            engine.excluded(t.name, keyWhy);
            engine.schedule();
            return;
        }
        adopt(t, p.others());
        if (p.table() == null) {
            // Not published itself (a root published leaf by leaf, a parent whose children alone are
            // listed): the stream names none of its rows by it; the relations it names are read instead.
            first.thenAccept(r -> r.connection().close());
            log.info("slot {}: the stream names the rows of {} by other relations of its tree; snapshotting those: {}", engine.slot, t.name,
                    p.others());
            engine.end(t, TableProgress.Status.COMPLETED);
            engine.schedule();
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
        for (int oid : oids) engine.window.register(oid, t);
        t.trackFrom(engine.window.recentlyDelivered());
        // Without two_phase the stream decodes a prepared transaction at COMMIT PREPARED, whole, as a plain commit.
        engine.window.trackingStarts(t, Boolean.TRUE.equals(engine.stream.options().twoPhase()) ? p.prepared() : null);
        // Still PLANNING (no chunk starts) until the server says which commits linger: asked now, after
        // the tracking started, and before any chunk's snapshot.
        first.thenCompose(r -> LingeringCommits.ask(r.connection()))
                .whenComplete((lingering, e2) -> engine.loop.execute(() -> tracked(t, first, lingering, e2)));
    }

    /**
     * Why the scope leaves out a column of the key {@code k}'s chunks are walked by (its values would
     * bound every chunk and show in the progress), or null.
     */
    private String excludedKey(KeyedTable k) {
        for (KeyedTable.Column c : k.keyColumns()) {
            String why = engine.options.capture().excludesColumn(k.schema(), k.table(), c.name());
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
            if (engine.tables.containsKey(name)) continue;
            String why = engine.excluded(name);
            if (why != null) {
                engine.excluded(name, why);
                continue;
            }
            engine.tables.put(name, new TableRun(name, t.condition, t.surrogateKey, null));
            added = true;
        }
        if (added) {
            log.info("slot {}: incremental snapshot of {} takes the relations of its tree the stream names rows by: {}", engine.slot, t.name, others);
            engine.updateState();
        }
    }

    private void tracked(TableRun t, CompletionStage<ChunkReader> first, long[] lingering, Throwable e) {
        if (engine.tables.get(t.name) != t) {
            first.thenAccept(r -> r.connection().close());
            return;
        }
        if (e != null) {
            planningFailed(t, e);
            return;
        }
        t.lingering(lingering);
        t.error = null; // a failed attempt's reason, reported while it waited
        t.status = engine.held(t) ? TableProgress.Status.PAUSED : TableProgress.Status.RUNNING;
        log.info("slot {}: incremental snapshot of {} started: {} key range(s), about {} rows, {} watermarks", engine.slot, t.name,
                t.cursors.size(), t.plan.estimatedRows(), engine.mode);
        engine.updateState();
        engine.progress(t);
        engine.schedule();
    }

    /**
     * Planning {@code t} failed: a transient error is tried again on a new connection after a pause
     * (the table stays PLANNING, its progress saying why it waits), up to {@link #MAX_PLAN_ATTEMPTS}
     * attempts; any other error, or the last attempt's, fails the table at once with the reason.
     */
    private void planningFailed(TableRun t, Throwable e) {
        int failures = t.planFailures + 1;
        if (!Failures.isTransient(e)) {
            engine.fail(t, e);
            return;
        }
        if (failures >= MAX_PLAN_ATTEMPTS) {
            engine.fail(t, "planning failed " + failures + " times in a row, the last time with: " + Failures.message(e));
            return;
        }
        // Whatever the failed attempt set up goes: a new run plans the table afresh.
        TableRun fresh = engine.rerun(t, t.resumed);
        fresh.planFailures = failures;
        fresh.planning = true; // until the pause is over
        long wait = Failures.backoffMs(failures, PLAN_RETRY_MS, PLAN_RETRY_MAX_MS);
        fresh.error = "planning attempt " + failures + " of " + MAX_PLAN_ATTEMPTS + " failed, trying again in " + wait + " ms: "
                + Failures.message(e);
        log.warn("slot {}: incremental snapshot of {}: {}", engine.slot, t.name, fresh.error);
        engine.updateState();
        engine.progress(fresh);
        // Through the current loop: a reconnect may have moved the engine to another by then.
        engine.loop.schedule(() -> engine.loop.execute(() -> {
            if (engine.tables.get(fresh.name) != fresh || engine.closed) return;
            fresh.planning = false;
            engine.schedule();
        }), wait, java.util.concurrent.TimeUnit.MILLISECONDS);
    }
}
