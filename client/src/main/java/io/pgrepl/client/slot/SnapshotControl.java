package io.pgrepl.client.slot;

/**
 * What the slot guard may do to a snapshot that runs beside the stream (an incremental snapshot
 * reads while the slot keeps retaining WAL). Implemented by the snapshot; called on the monitor's
 * thread, so implementations only signal and return.
 */
public interface SnapshotControl {
    /** Stop reading chunks until {@link #resume()}; the stream goes on and can catch up. */
    void pause();

    /**
     * Give the snapshot up.
     *
     * @param reason the guard's reason, for the snapshot's own error or notification
     */
    void abort(String reason);

    /** The slot is out of danger again after {@link #pause()}: continue reading. Default: nothing. */
    default void resume() {}
}
