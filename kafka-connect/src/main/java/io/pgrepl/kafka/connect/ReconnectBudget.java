package io.pgrepl.kafka.connect;

import io.pgrepl.client.stream.ReconnectPolicy;
import io.pgrepl.client.stream.ReplicationSlotException;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * How long the task keeps reconnecting a lost stream: up to {@link #MAX_CONSECUTIVE_FAILURES}
 * failures in a row, except that a slot held by another connection (55006: a walsender that has
 * not noticed its peer died yet, until wal_sender_timeout) is waited for up to
 * {@code slotInUseWait} from its first refusal in a row, without counting. Builder thread only.
 */
final class ReconnectBudget {
    static final int MAX_CONSECUTIVE_FAILURES = 10;

    private final Duration slotInUseWait;
    private final LongSupplier nanoClock;
    private int failures;
    private long heldSince;
    private boolean held;

    ReconnectBudget(Duration slotInUseWait, LongSupplier nanoClock) {
        this.slotInUseWait = slotInUseWait;
        this.nanoClock = nanoClock;
    }

    static ReconnectBudget defaults() {
        return new ReconnectBudget(ReconnectPolicy.DEFAULT_SLOT_IN_USE_WAIT, System::nanoTime);
    }

    /** Whether {@code cause} is START_REPLICATION refused because another connection holds the slot. */
    static boolean slotHeld(RuntimeException cause) {
        return cause instanceof ReplicationSlotException se && se.condition() == ReplicationSlotException.Condition.IN_USE;
    }

    /** One failure ({@code slotHeld}: the slot was held by another connection); null to retry, else why to give up. */
    String failed(boolean slotHeld) {
        if (slotHeld) {
            long now = nanoClock.getAsLong();
            if (!held) {
                held = true;
                heldSince = now;
            }
            if (now - heldSince > slotInUseWait.toNanos()) {
                return "the slot is still held by another connection after " + slotInUseWait.toSeconds() + " s";
            }
            return null;
        }
        held = false;
        return ++failures > MAX_CONSECUTIVE_FAILURES ? MAX_CONSECUTIVE_FAILURES + " reconnects failed in a row" : null;
    }

    /** The stream delivered: the next failure starts a new count. */
    void succeeded() {
        failures = 0;
        held = false;
    }

    /** Whether the last failure was a held slot (waited for, not counted). */
    boolean waitingForSlot() {
        return held;
    }

    /** Failures in a row (held-slot refusals excluded), for the backoff. */
    int failures() {
        return failures;
    }
}
