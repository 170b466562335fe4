package io.pgrepl.client.reactive;

import io.pgrepl.client.stream.LogicalReplicationStream;

/**
 * Demand from a {@link FlowBuffer} applied to a replication stream's socket: the buffer's pause
 * and resume turn reading off and on, a cancel stops the stream (CopyDone).
 *
 * <p>The buffer's current wish is applied, not the call: a resume queued from the subscriber's
 * thread that runs after a newer pause re-applies the pause. On the event loop a pause is applied
 * inline, so autoRead goes off before Netty's read loop asks for another read (otherwise up to
 * 16 x 64 KiB more would arrive).
 */
public final class StreamUpstream implements FlowBuffer.Upstream {
    private final FlowBuffer<?> buffer;
    private final LogicalReplicationStream stream;

    /**
     * Binds the buffer's demand to the stream.
     *
     * @param buffer the buffer whose {@link FlowBuffer#pauseWanted()} decides
     * @param stream the stream whose reading is paused and resumed
     */
    public StreamUpstream(FlowBuffer<?> buffer, LogicalReplicationStream stream) {
        this.buffer = buffer;
        this.stream = stream;
    }

    private void apply() {
        if (buffer.pauseWanted()) stream.pauseReading();
        else stream.resumeReading();
    }

    @Override
    public void pause() {
        if (stream.eventLoop().inEventLoop()) apply();
        else stream.eventLoop().execute(this::apply);
    }

    @Override
    public void resume() {
        stream.eventLoop().execute(this::apply);
    }

    @Override
    public void cancel() {
        stream.stop();
    }
}
