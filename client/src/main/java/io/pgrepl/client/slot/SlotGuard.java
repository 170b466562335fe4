package io.pgrepl.client.slot;

import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.ReconnectingLogicalStream;
import io.pgrepl.client.stream.SlotGuardTrippedException;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Protects one slot from invalidation by its own consumer falling behind: on each poll of a
 * {@link SlotMonitor} it applies a {@link SlotGuardPolicy}, in order, and each step once on the way
 * up: warn, then pause or abort the running snapshot ({@link SnapshotControl}), then fail the stream
 * with {@link SlotGuardTrippedException} (not retried by {@link ReconnectingLogicalStream}). Steps
 * skipped between two polls are all taken, in order. Once tripped the guard does nothing more.
 * Coming back below a step logs it (and resumes a paused snapshot).
 *
 * <p>Thresholds must leave room for the poll interval: the slot must not go from the fail
 * threshold to {@code unreserved} within one interval at the peak WAL rate. The server invalidates
 * an {@code unreserved} slot at its next checkpoint, so tripping on {@code unreserved} is the last
 * chance, not a safe margin.
 *
 * <p>Also warns, once per inactive period, when PostgreSQL 18's {@code idle_replication_slot_timeout}
 * will invalidate the slot within {@link SlotGuardPolicy.Builder#idleTimeoutWarning}.
 *
 * <p>Called on the monitor's thread; events go to the log (WARN) and to listeners on that thread.
 */
public final class SlotGuard implements SlotHealthListener, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(SlotGuard.class);

    private final SlotMonitor monitor;
    private final String slot;
    private final SlotGuardPolicy policy;
    private final Consumer<SlotGuardTrippedException> target;
    private final List<Consumer<GuardEvent>> listeners = new CopyOnWriteArrayList<>();
    private volatile SnapshotControl snapshot;
    private volatile boolean snapshotPaused;
    private volatile int step; // highest step taken and still in force
    private volatile SlotGuardTrippedException tripped;
    private boolean idleWarned; // monitor thread only

    private SlotGuard(SlotMonitor monitor, String slot, SlotGuardPolicy policy, Consumer<SlotGuardTrippedException> target) {
        this.monitor = monitor;
        this.slot = slot;
        this.policy = policy;
        this.target = target;
    }

    /**
     * Guards {@code slot} with the polls of {@code monitor} (which must watch it) and fails {@code stream}.
     *
     * @param monitor the monitor polling the slot
     * @param slot    the slot the stream consumes
     * @param policy  the thresholds
     * @param stream  the stream to fail at the last step
     * @return the guard, listening
     */
    public static SlotGuard attach(SlotMonitor monitor, String slot, SlotGuardPolicy policy, LogicalReplicationStream stream) {
        Objects.requireNonNull(stream, "stream");
        return attach(monitor, slot, policy, (Consumer<SlotGuardTrippedException>) stream::fail);
    }

    /**
     * As {@link #attach(SlotMonitor, String, SlotGuardPolicy, LogicalReplicationStream)} for a reconnecting
     * stream: its whole run fails, without a reconnect.
     *
     * @param monitor the monitor polling the slot
     * @param slot    the slot the stream consumes
     * @param policy  the thresholds
     * @param stream  the stream to fail at the last step
     * @return the guard, listening
     */
    public static SlotGuard attach(SlotMonitor monitor, String slot, SlotGuardPolicy policy, ReconnectingLogicalStream stream) {
        Objects.requireNonNull(stream, "stream");
        return attach(monitor, slot, policy, (Consumer<SlotGuardTrippedException>) stream::fail);
    }

    /**
     * The general form: {@code target} is told the error at the last step (e.g. a Connect task's own stop).
     *
     * @param monitor the monitor polling the slot
     * @param slot    the slot to guard
     * @param policy  the thresholds
     * @param target  what the last step does with the error
     * @return the guard, listening
     */
    public static SlotGuard attach(SlotMonitor monitor, String slot, SlotGuardPolicy policy,
                                   Consumer<SlotGuardTrippedException> target) {
        SlotQueries.checkSlotName(slot);
        if (!monitor.slots().isEmpty() && !monitor.slots().contains(slot)) {
            throw new IllegalArgumentException("the monitor does not poll slot \"" + slot + "\"");
        }
        SlotGuard g = new SlotGuard(monitor, slot, Objects.requireNonNull(policy, "policy"), Objects.requireNonNull(target, "target"));
        monitor.addListener(g);
        return g;
    }

    /**
     * The snapshot running beside the stream, or null when none runs (set it when one starts, clear it when it ends).
     * A snapshot set while the slot is past the snapshot step is paused or aborted at the next poll.
     *
     * @param control the snapshot's control, or null
     */
    public void snapshot(SnapshotControl control) {
        snapshot = control;
        snapshotPaused = false;
        if (control != null && step >= 2) step = 1; // the next poll takes the snapshot step for it
    }

    /** @param listener told of every step taken, on the monitor's thread */
    public void addListener(Consumer<GuardEvent> listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /** {@return the error the guard failed the stream with, or null while it has not tripped} */
    public SlotGuardTrippedException tripped() {
        return tripped;
    }

    /** Stops listening to the monitor. */
    @Override
    public void close() {
        monitor.removeListener(this);
    }

    @Override
    public void onHealth(List<SlotHealth> slots) {
        SlotHealth h = null;
        for (SlotHealth s : slots) {
            if (s.slotName().equals(slot)) h = s;
        }
        if (h == null || tripped != null) return;
        idleTimeout(h);
        int now = policy.step(h);
        int before = step;
        for (int s = before + 1; s <= now; s++) take(s, h);
        if (now < before) {
            step = now;
            if (before >= 2 && now < 2 && snapshotPaused && snapshot != null) {
                snapshotPaused = false;
                snapshot.resume();
                emit(GuardEvent.Kind.SNAPSHOT_RESUMED, h, "slot \"" + slot + "\" out of the snapshot step again; snapshot resumed");
            }
            if (now == 0) emit(GuardEvent.Kind.RECOVERED, h, "slot \"" + slot + "\" back below the warn threshold" + values(h));
        }
    }

    private void take(int s, SlotHealth h) {
        String why = policy.crossed(h, s);
        if (why == null) why = policy.crossed(h, policy.step(h)); // a higher step's cause implies this one
        step = s;
        switch (s) {
            case 1 -> emit(GuardEvent.Kind.WARNED, h, "slot \"" + slot + "\" at risk: " + why + values(h));
            case 2 -> {
                SnapshotControl c = snapshot;
                if (c == null) return;
                String msg = "slot \"" + slot + "\": " + why + values(h);
                if (policy.snapshotAction == SlotGuardPolicy.SnapshotAction.PAUSE) {
                    snapshotPaused = true;
                    c.pause();
                    emit(GuardEvent.Kind.SNAPSHOT_PAUSED, h, msg + "; snapshot paused");
                } else {
                    c.abort("slot guard: " + msg);
                    snapshot = null;
                    emit(GuardEvent.Kind.SNAPSHOT_ABORTED, h, msg + "; snapshot aborted");
                }
            }
            default -> {
                SlotGuardTrippedException e = new SlotGuardTrippedException(slot, h.walStatus(), h.safeWalSize(),
                        h.retainedWal(), why);
                tripped = e;
                emit(GuardEvent.Kind.TRIPPED, h, e.getMessage());
                target.accept(e);
            }
        }
    }

    private void idleTimeout(SlotHealth h) {
        Double left = h.idleTimeoutRemainingSeconds();
        if (left == null) {
            idleWarned = false;
            return;
        }
        long warnAt = policy.idleTimeoutWarning.toSeconds();
        if (!idleWarned && warnAt > 0 && left <= warnAt) {
            idleWarned = true;
            emit(GuardEvent.Kind.IDLE_TIMEOUT_NEAR, h, String.format(java.util.Locale.ROOT,
                    "slot \"%s\" inactive for %.0f s; idle_replication_slot_timeout (%d s) invalidates it at the first"
                            + " checkpoint after %.0f s more: start its consumer", slot, h.inactiveSeconds(),
                    h.idleTimeoutSeconds(), Math.max(0, left)));
        }
    }

    private static String values(SlotHealth h) {
        return " (safe_wal_size " + (h.safeWalSize() == null ? "unlimited" : SlotGuardPolicy.mb(h.safeWalSize()))
                + ", retained WAL " + (h.retainedWal() == null ? "unknown" : SlotGuardPolicy.mb(h.retainedWal()))
                + ", wal_status " + h.walStatus() + ")";
    }

    private void emit(GuardEvent.Kind kind, SlotHealth h, String message) {
        log.warn("{}", message);
        GuardEvent e = new GuardEvent(kind, h, message);
        for (Consumer<GuardEvent> l : listeners) {
            try {
                l.accept(e);
            } catch (RuntimeException ex) {
                log.warn("slot guard listener failed", ex);
            }
        }
    }
}
