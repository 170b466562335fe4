package io.pgrepl.client.replication;

import io.pgrepl.codec.Lsn;

/** READ_REPLICATION_SLOT's row (PG15+, physical slots): type, restart LSN (0 if unset) and its timeline. */
public record ReplicationSlotStatus(String slotType, long restartLsn, long restartTimeline) {
    /** LSNs as the server prints them ({@code X/X}). */
    @Override
    public String toString() {
        return "ReplicationSlotStatus[slotType=" + slotType + ", restartLsn=" + Lsn.format(restartLsn)
                + ", restartTimeline=" + restartTimeline + "]";
    }
}
