package io.pgrepl.client.snapshot;

/**
 * Whether a stream starts with a copy of the published tables. (Not to be confused with
 * {@link io.pgrepl.client.replication.SnapshotMode}, what CREATE_REPLICATION_SLOT does with the
 * slot's snapshot: an initial snapshot always creates the slot with an exported one.)
 */
public enum InitialSnapshotMode {
    /** Create the slot, copy the tables from its snapshot, then stream from its consistent point. */
    INITIAL,
    /** Stream only; no copy. */
    NEVER,
    /** Create the slot, copy the tables, and stop: no stream is started. */
    INITIAL_ONLY;

    /** {@return true when the mode copies, which is possible only while creating the slot} */
    public boolean copies() {
        return this != NEVER;
    }
}
