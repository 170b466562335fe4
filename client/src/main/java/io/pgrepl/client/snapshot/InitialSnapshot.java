package io.pgrepl.client.snapshot;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.LogicalStreamHandler;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * A consistent, parallel copy of the published tables, handed over to the stream with nothing
 * lost or doubled. The replication connection creates the slot with an exported snapshot;
 * {@link SnapshotOptions#workers()} ordinary connections import it
 * ({@code BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET TRANSACTION SNAPSHOT}) and run
 * {@code COPY (SELECT <published columns> FROM <table> [WHERE <row filter>] [AND <ctid range>]) TO STDOUT},
 * in the stream's value format; then streaming starts at the slot's consistent point. Every row
 * visible in the snapshot is read once, every later change streams once.
 *
 * <p>Usable alone ({@link #copy}: the connection stays free to start streaming, or to be closed)
 * or wired to the stream ({@link #start}). The reactive face is {@link SnapshotPublisher}.
 */
public final class InitialSnapshot {
    private InitialSnapshot() {}

    /**
     * Creates the slot with an exported snapshot on {@code replication} (a {@code replication=database}
     * connection that is not streaming) and copies the tables. Fails with {@link SnapshotException}:
     * an existing slot is refused before anything is copied and left untouched; after a failure no
     * worker session is left and the slot is dropped (unless permanent and
     * {@link SnapshotOptions#keepSlotOnFailure()}).
     *
     * @param replication an idle connection opened with {@code replication=database}; it creates the slot
     * @param options     the slot to create, the stream that follows, workers and progress
     * @param handler     receives the rows, from the workers' event loops
     * @return the result once every table was copied and the worker sessions ended
     */
    public static CompletionStage<SnapshotResult> copy(PgConnection replication, SnapshotOptions options, SnapshotHandler handler) {
        Objects.requireNonNull(replication, "replication");
        Objects.requireNonNull(options, "options");
        Objects.requireNonNull(handler, "handler");
        return new SnapshotRun(replication, options, handler).run();
    }

    /**
     * What {@link #start} did: the snapshot (null for {@link InitialSnapshotMode#NEVER}) and the
     * stream (null for {@link InitialSnapshotMode#INITIAL_ONLY}).
     */
    public record Started(SnapshotResult snapshot, LogicalReplicationStream stream) {}

    /**
     * The whole sequence for {@code mode}: copy (INITIAL, INITIAL_ONLY), then START_REPLICATION
     * from the consistent point (INITIAL) or from {@code options.stream()}'s start LSN (NEVER; the
     * slot must exist then). Every read reaches {@code snapshot} before the first change reaches
     * {@code stream}. The stage completes once the stream is in copy mode.
     *
     * @param replication an idle connection opened with {@code replication=database}
     * @param mode        whether to copy, stream, or both
     * @param options     the slot to create, the stream that follows, workers and progress
     * @param snapshot    receives the rows (unused for NEVER)
     * @param stream      receives the changes after the consistent point (unused for INITIAL_ONLY)
     * @return what was done; fails with {@link SnapshotException} or as the stream's start fails
     */
    public static CompletionStage<Started> start(PgConnection replication, InitialSnapshotMode mode, SnapshotOptions options,
                                                 SnapshotHandler snapshot, LogicalStreamHandler stream) {
        Objects.requireNonNull(mode, "mode");
        if (mode == InitialSnapshotMode.NEVER) {
            return startStream(replication, options.stream(), stream).thenApply(s -> new Started(null, s));
        }
        return copy(replication, options, snapshot).thenCompose(r -> {
            if (mode == InitialSnapshotMode.INITIAL_ONLY) return CompletableFuture.completedFuture(new Started(r, null));
            LogicalReplicationOptions from = options.stream().toBuilder().startLsn(r.consistentPoint()).build();
            return startStream(replication, from, stream).thenApply(s -> new Started(r, s));
        });
    }

    private static CompletionStage<LogicalReplicationStream> startStream(PgConnection c, LogicalReplicationOptions o,
                                                                         LogicalStreamHandler h) {
        try {
            LogicalReplicationStream s = c.startLogical(o, h);
            return s.started().thenApply(v -> s);
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }
}
