package io.pgrepl.client.snapshot;

import io.pgrepl.codec.pgoutput.TupleView;
import java.util.List;

/**
 * The zero-copy face of an initial snapshot. Calls never overlap (they are serialized across the
 * workers, each call happens-before the next) but come from the workers' event loops: don't block
 * for long, since every worker waits for the call in progress.
 */
public interface SnapshotHandler {
    /**
     * Before any read: the consistent point (the position of every read, and where streaming
     * starts) and the tables about to be copied, largest first, as {@code schema.table}.
     *
     * @param consistentPoint the slot's consistent point
     * @param tables          the tables to copy
     */
    default void onStart(long consistentPoint, List<SnapshotTable> tables) {}

    /**
     * One row, as the same view a streamed insert carries: {@code row.relation()} names the table
     * and its published columns. The view is valid only during the call. Rows of one table come in
     * no particular order, and rows of different tables interleave.
     *
     * @param row             the row, valid only during the call
     * @param consistentPoint the slot's consistent point, the position of every read
     */
    void onRead(TupleView row, long consistentPoint);

    /**
     * A table was skipped or will stream incompletely; the snapshot goes on.
     *
     * @param warning what and which table
     */
    default void onWarning(SnapshotWarning warning) {}

    /**
     * After the last read (not called when the snapshot fails).
     *
     * @param result the slot, consistent point, tables and row count
     */
    default void onEnd(SnapshotResult result) {}
}
