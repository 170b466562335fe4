package io.pgrepl.client.snapshot.incremental;

import io.pgrepl.client.slot.SnapshotControl;

/**
 * The slot guard's hold on an engine ({@link IncrementalSnapshots#guardControl()}). Its pause is
 * kept apart from the pauses of signals and the API: the guard's resume releases only its own hold,
 * so a snapshot an operator paused stays paused. Calls come on the monitor's thread and are handed
 * to the stream's event loop.
 */
final class GuardControl implements SnapshotControl {
    private final IncrementalSnapshots snapshots;
    private final Engine engine;

    GuardControl(IncrementalSnapshots snapshots, Engine engine) {
        this.snapshots = snapshots;
        this.engine = engine;
    }

    @Override
    public void pause() {
        snapshots.run(() -> engine.guardHold(true));
    }

    @Override
    public void abort(String reason) {
        snapshots.run(() -> {
            engine.guardHold(false); // a snapshot requested after the abort is not held
            engine.abortAll(reason);
        });
    }

    @Override
    public void resume() {
        snapshots.run(() -> engine.guardHold(false));
    }
}
