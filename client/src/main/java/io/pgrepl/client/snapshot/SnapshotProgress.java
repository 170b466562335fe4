package io.pgrepl.client.snapshot;

/**
 * Progress of a running snapshot. {@code rowsEstimate} is the planner-style guess at the start:
 * {@code pg_class.reltuples} scaled to each table's current size, or for a table never analyzed
 * its pages times the rows a page holds at its columns' widths. It ignores publication row
 * filters (a filtered table counts all its rows), so {@code rowsDone} may stay well below it, or
 * pass it.
 */
public record SnapshotProgress(int tablesDone, int tablesTotal, long rowsDone, long rowsEstimate, double rowsPerSecond,
                               boolean finished) {}
