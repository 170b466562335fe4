package io.pgrepl.client.snapshot;

/** Receives {@link SnapshotProgress} every {@link SnapshotOptions#progressInterval()} and once at the end. */
@FunctionalInterface
public interface SnapshotProgressListener {
    /**
     * Called on an event loop: keep it quick.
     *
     * @param progress tables and rows done so far
     */
    void onProgress(SnapshotProgress progress);
}
