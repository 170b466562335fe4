package io.pgrepl.client.snapshot.incremental;

import io.pgrepl.client.stream.LogicalStreamHandler;
import io.pgrepl.codec.pgoutput.TupleView;

/**
 * A logical stream handler that also receives an incremental snapshot's reads, in stream order:
 * between transactions (never between a Begin and its Commit, nor inside a streamed block), on the
 * stream's event loop like every other callback.
 */
public interface SnapshotReadHandler extends LogicalStreamHandler {
    /**
     * One row read by an incremental snapshot, as the same view a streamed insert carries:
     * {@code row.relation()} names the table and its published columns. Valid only during the call.
     * No change of the same key that the stream delivered before this call is newer than the row.
     *
     * @param row      the row
     * @param position the chunk's high watermark: the end LSN of its commit, or in read-only mode
     *                 the WAL position read after the chunk
     */
    void onSnapshotRead(TupleView row, long position);

    /**
     * A table's snapshot started, emitted a chunk, completed, paused, stopped or failed.
     *
     * @param progress the table's progress
     */
    default void onSnapshotProgress(TableProgress progress) {}

    /**
     * A snapshot signal from the stream (a {@code pgrepl} logical message or a signal table row)
     * could not be read; it was ignored and the stream goes on. Also logged at ERROR.
     *
     * @param source where it came from, e.g. {@code logical message at 0/1A2B3C4}
     * @param reason what is wrong, naming the field
     */
    default void onSignalRefused(String source, String reason) {}
}
