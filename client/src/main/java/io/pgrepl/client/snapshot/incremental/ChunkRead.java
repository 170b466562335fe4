package io.pgrepl.client.snapshot.incremental;

/**
 * A chunk as read: its rows, the snapshot they were read under, and in read-only mode the WAL
 * positions read with it ({@code lowLsn} inside the transaction, {@code highLsn} after it).
 */
record ChunkRead(ChunkRows rows, XidSnapshot snapshot, long lowLsn, long highLsn) {}
