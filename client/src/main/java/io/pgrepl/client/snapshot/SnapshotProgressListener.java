package io.pgrepl.client.snapshot;

/** Receives {@link SnapshotProgress} every {@link SnapshotOptions#progressInterval()} and once at the end. */
@FunctionalInterface
public interface SnapshotProgressListener {
    /** Called on an event loop: keep it quick. */
    void onProgress(SnapshotProgress progress);
}
