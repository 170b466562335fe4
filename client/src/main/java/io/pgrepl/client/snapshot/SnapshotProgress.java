package io.pgrepl.client.snapshot;

/**
 * Progress of a running snapshot. {@code rowsEstimate} is the sum of {@code pg_class.reltuples}
 * at the start (0 for never-analyzed tables), so {@code rowsDone} may pass it.
 */
public record SnapshotProgress(int tablesDone, int tablesTotal, long rowsDone, long rowsEstimate, double rowsPerSecond,
                               boolean finished) {}
