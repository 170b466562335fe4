package io.pgrepl.client.snapshot;

/**
 * Something the snapshot went on despite: {@code table} is {@code schema.table}.
 */
public record SnapshotWarning(Kind kind, String table, String message) {
    /** What the snapshot went on despite. */
    public enum Kind {
        /** Published without a usable replica identity: the server refuses its updates and deletes while they are published. */
        NO_REPLICA_IDENTITY,
        /** Dropped while the snapshot ran: skipped. */
        TABLE_DROPPED
    }
}
