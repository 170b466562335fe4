package io.pgrepl.flink.internal;

import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.slot.SlotGuard;
import io.pgrepl.client.slot.SlotGuardPolicy;
import io.pgrepl.client.slot.SlotHealth;
import io.pgrepl.client.slot.SlotMonitor;
import io.pgrepl.client.stream.SlotGuardTrippedException;
import java.time.Duration;
import java.util.function.Consumer;

/**
 * The slot's own figures, polled by the client's {@link SlotMonitor} on the enumerator's side (one
 * per job, from the slot's creation on: the snapshot phase is when the slot retains the most), and
 * the client's {@link SlotGuard}: a warning past one threshold, the job failed with
 * {@link SlotGuardTrippedException} past the other, before PostgreSQL invalidates the slot.
 */
final class SlotWatch implements AutoCloseable {
    private final SlotMonitor monitor;
    private final SlotGuard guard;
    private volatile long retainedWal = -1;

    private SlotWatch(Settings s, Consumer<SlotGuardTrippedException> fail) {
        Duration every = s.slotMetricsInterval().isZero() ? Duration.ofSeconds(30) : s.slotMetricsInterval();
        this.monitor = SlotMonitor.builder(s.connection(ReplicationMode.NONE)).slot(s.slotName()).interval(every)
                .listener(slots -> {
                    for (SlotHealth h : slots) if (h.retainedWal() != null) retainedWal = h.retainedWal();
                })
                .build();
        if (s.guardWarnRetainedWal() > 0 || s.guardFailRetainedWal() > 0) {
            SlotGuardPolicy.Builder p = SlotGuardPolicy.builder();
            if (s.guardWarnRetainedWal() > 0) p.warnWhenRetainedWalAbove(s.guardWarnRetainedWal());
            if (s.guardFailRetainedWal() > 0) p.failWhenRetainedWalAbove(s.guardFailRetainedWal());
            this.guard = SlotGuard.attach(monitor, s.slotName(), p.build(), fail);
        } else {
            this.guard = null;
        }
        monitor.start();
    }

    /** {@return a watch, or null when neither the metrics nor the guard are asked for} */
    static SlotWatch start(Settings s, Consumer<SlotGuardTrippedException> fail) {
        boolean guarded = s.guardWarnRetainedWal() > 0 || s.guardFailRetainedWal() > 0;
        if (s.slotMetricsInterval().isZero() && !guarded) return null;
        return new SlotWatch(s, fail);
    }

    /** {@return the bytes of WAL the slot retains as last polled, -1 before the first poll} */
    long retainedWal() {
        return retainedWal;
    }

    @Override
    public void close() {
        if (guard != null) guard.close();
        monitor.close();
    }
}
