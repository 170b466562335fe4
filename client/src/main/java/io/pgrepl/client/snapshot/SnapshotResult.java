package io.pgrepl.client.snapshot;

import java.util.List;

/**
 * A finished snapshot: the slot it created, the slot's consistent point (where streaming starts,
 * and the position every snapshot read carries), the exported snapshot's name, the tables copied
 * ({@code schema.table}; dropped ones left out) and the rows read.
 */
public record SnapshotResult(String slotName, long consistentPoint, String snapshotName, List<String> tables, long rows) {
    /**
     * Copies the table list.
     *
     * @param slotName        the slot created
     * @param consistentPoint where streaming starts
     * @param snapshotName    the exported snapshot's name
     * @param tables          the tables copied
     * @param rows            the rows read
     */
    public SnapshotResult {
        tables = List.copyOf(tables);
    }

    /** {@return the fields, the consistent point as the server prints LSNs ({@code 0/16B3748})} */
    @Override
    public String toString() {
        return "SnapshotResult[slotName=" + slotName + ", consistentPoint=" + io.pgrepl.codec.Lsn.format(consistentPoint)
                + ", snapshotName=" + snapshotName + ", tables=" + tables + ", rows=" + rows + "]";
    }
}
