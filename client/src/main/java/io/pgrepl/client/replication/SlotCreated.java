package io.pgrepl.client.replication;

import io.pgrepl.codec.Lsn;

/**
 * CREATE_REPLICATION_SLOT's row. {@code snapshotName} is set only for an exported snapshot;
 * {@code outputPlugin} is null for physical slots. {@code consistentPoint} is an LSN.
 */
public record SlotCreated(String slotName, long consistentPoint, String snapshotName, String outputPlugin) {
    /** LSNs as the server prints them ({@code X/X}). */
    @Override
    public String toString() {
        return "SlotCreated[slotName=" + slotName + ", consistentPoint=" + Lsn.format(consistentPoint)
                + ", snapshotName=" + snapshotName + ", outputPlugin=" + outputPlugin + "]";
    }
}
