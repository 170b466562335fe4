package io.pgrepl.client.slot;

/**
 * What the slot guard did, and on which reading of the slot.
 *
 * @param kind    what happened
 * @param health  the poll that caused it
 * @param message a sentence for a log or a notification (names the threshold and the values)
 */
public record GuardEvent(Kind kind, SlotHealth health, String message) {
    /** What the guard did. */
    public enum Kind {
        /** The warn threshold was crossed. */
        WARNED,
        /** The snapshot threshold was crossed and the snapshot paused. */
        SNAPSHOT_PAUSED,
        /** The snapshot threshold was crossed and the snapshot aborted. */
        SNAPSHOT_ABORTED,
        /** The slot went back below the snapshot threshold; a paused snapshot resumed. */
        SNAPSHOT_RESUMED,
        /** The fail threshold was crossed: the stream was failed with SlotGuardTrippedException. */
        TRIPPED,
        /** The slot went back below the warn threshold. */
        RECOVERED,
        /** idle_replication_slot_timeout (18) will soon invalidate the inactive slot. */
        IDLE_TIMEOUT_NEAR
    }
}
