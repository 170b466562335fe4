package io.pgrepl.kafka.connect;

import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.slot.SlotGuard;
import io.pgrepl.client.slot.SlotGuardPolicy;
import io.pgrepl.client.slot.SlotMonitor;
import io.pgrepl.client.slot.SnapshotControl;
import io.pgrepl.client.stream.SlotGuardTrippedException;
import java.time.Duration;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * The slot guard for a task (slot.guard.* settings): a {@link SlotMonitor} of the task's slot over
 * an ordinary connection of its own and a {@link SlotGuard} with the thresholds. The guard's
 * last step does not touch the stream: the task's next poll throws a plain {@link ConnectException}
 * (not retriable), so Connect marks the task FAILED with the slot, the crossed threshold and
 * the slot's figures in its trace, and restarts nothing by itself: restarting would only bring
 * back the consumer that fell behind while the server keeps removing WAL.
 */
final class SlotGuardTask implements AutoCloseable {
    private final SlotMonitor monitor;
    private final SlotGuard guard;

    private SlotGuardTask(SlotMonitor monitor, SlotGuard guard) {
        this.monitor = monitor;
        this.guard = guard;
    }

    /** The policy the settings describe, or null when no threshold is set (no guard runs). */
    static SlotGuardPolicy policy(PgreplConnectorConfig config) {
        long[] t = config.slotGuardThresholds();
        boolean any = false;
        for (long v : t) any |= v > 0;
        if (!any) return null;
        try {
            return SlotGuardPolicy.builder()
                    .warnWhenSafeWalBelow(t[0]).snapshotWhenSafeWalBelow(t[1]).failWhenSafeWalBelow(t[2])
                    .warnWhenRetainedWalAbove(t[3]).snapshotWhenRetainedWalAbove(t[4]).failWhenRetainedWalAbove(t[5])
                    .snapshotAction(config.slotGuardAbortsSnapshot() ? SlotGuardPolicy.SnapshotAction.ABORT
                            : SlotGuardPolicy.SnapshotAction.PAUSE)
                    .build();
        } catch (IllegalArgumentException e) {
            throw new ConfigException("slot.guard.* thresholds: " + e.getMessage());
        }
    }

    /**
     * Starts polling the task's slot.
     *
     * @param config the connector's settings
     * @return the running guard, or null when no threshold is set
     */
    static SlotGuardTask start(PgreplConnectorConfig config) {
        SlotGuardPolicy policy = policy(config);
        if (policy == null) return null;
        SlotMonitor monitor = SlotMonitor.builder(config.connectionConfig().toBuilder().replication(ReplicationMode.NONE).build())
                .slot(config.slotName()).interval(Duration.ofMillis(config.slotGuardIntervalMs())).build();
        // The error is kept by the guard (tripped()); the task's poll raises it.
        SlotGuard guard = SlotGuard.attach(monitor, config.slotName(), policy, (SlotGuardTrippedException e) -> { });
        monitor.start();
        return new SlotGuardTask(monitor, guard);
    }

    /** Throws the task's failure once the guard has tripped. */
    void check() {
        SlotGuardTrippedException e = guard.tripped();
        if (e != null) throw new ConnectException("slot guard stopped the task: " + e.getMessage(), e);
    }

    /** @param control the incremental snapshot running beside the stream, or null when none runs */
    void snapshot(SnapshotControl control) {
        guard.snapshot(control);
    }

    @Override
    public void close() {
        guard.close();
        monitor.close();
    }
}
