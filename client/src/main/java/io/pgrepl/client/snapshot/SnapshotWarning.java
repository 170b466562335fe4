package io.pgrepl.client.snapshot;

/**
 * Something the snapshot went on despite: {@code table} is {@code schema.table}.
 */
public record SnapshotWarning(Kind kind, String table, String message) {
    /** What the snapshot went on despite. */
    public enum Kind {
        /** Published without a usable replica identity: its updates and deletes will not stream. */
        NO_REPLICA_IDENTITY,
        /** Dropped while the snapshot ran: skipped. */
        TABLE_DROPPED
    }
}
