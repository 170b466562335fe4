package io.pgrepl.client.snapshot;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.replication.SnapshotMode;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import java.time.Duration;
import java.util.Objects;

/**
 * What an initial snapshot copies and how. The publications and the value format (binary or
 * text) come from the stream's options, so the copy and the stream agree; the slot is created
 * with {@code slot} (its name must be the stream's slot).
 *
 * @param slot              the slot to create (logical, pgoutput); its snapshot is always exported
 * @param stream            the stream that follows (publications, binary, and START_REPLICATION)
 * @param workers           parallel COPY connections (default 4)
 * @param unitPages         tables larger than this are split into ctid page ranges of this many
 *                          pages on PostgreSQL 14+ (default 4096, 32 MiB with 8 KiB pages)
 * @param keepSlotOnFailure keep a permanent slot created for a snapshot that then failed
 *                          (default false: it is dropped, so re-running works)
 * @param workerConfig      configuration of the workers' (non-replication) connections; null:
 *                          the replication connection's, with {@code replication} off
 * @param progress          progress listener, or null
 * @param progressInterval  how often progress is reported (default 1 s)
 */
public record SnapshotOptions(CreateSlotOptions slot, LogicalReplicationOptions stream, int workers, long unitPages,
                              boolean keepSlotOnFailure, ConnectionConfig workerConfig, SnapshotProgressListener progress,
                              Duration progressInterval) {
    public SnapshotOptions {
        Objects.requireNonNull(slot, "slot");
        Objects.requireNonNull(stream, "stream");
        Objects.requireNonNull(progressInterval, "progressInterval");
        if (!slot.logical()) throw new IllegalArgumentException("an initial snapshot needs a logical slot");
        if (!slot.slotName().equals(stream.slotName())) {
            throw new IllegalArgumentException("slot " + slot.slotName() + " is not the stream's slot " + stream.slotName());
        }
        if (slot.snapshot() != null && slot.snapshot() != SnapshotMode.EXPORT) {
            throw new SnapshotException(SnapshotException.Kind.SLOT_NOT_CREATED, "an initial snapshot needs the slot's snapshot"
                    + " exported, not " + slot.snapshot(), null, null);
        }
        if (workers < 1 || workers > 64) throw new IllegalArgumentException("workers must be 1..64, not " + workers);
        if (unitPages < 1) throw new IllegalArgumentException("unitPages must be positive");
        if (progressInterval.isNegative() || progressInterval.isZero()) throw new IllegalArgumentException("progressInterval");
    }

    /** Defaults for creating {@code stream}'s slot (pgoutput, permanent) and copying through it. */
    public static SnapshotOptions of(LogicalReplicationOptions stream) {
        return new SnapshotOptions(CreateSlotOptions.logical(stream.slotName(), "pgoutput"), stream, 4, 4096, false, null,
                null, Duration.ofSeconds(1));
    }

    /**
     * The check a caller that may or may not create the slot runs first (the CLI's
     * {@code --snapshot} without {@code --create-slot}): refused before anything runs.
     */
    public static void requireSlotCreation(InitialSnapshotMode mode, boolean creatingSlot) {
        if (mode.copies() && !creatingSlot) {
            throw new SnapshotException(SnapshotException.Kind.SLOT_NOT_CREATED, "an initial snapshot needs the slot to be"
                    + " created now: its exported snapshot exists only at slot creation (create the slot, or stream without"
                    + " a snapshot)", null, null);
        }
    }

    public boolean binary() {
        return Boolean.TRUE.equals(stream.binary());
    }

    public SnapshotOptions withSlot(CreateSlotOptions v) {
        return new SnapshotOptions(v, stream, workers, unitPages, keepSlotOnFailure, workerConfig, progress, progressInterval);
    }

    public SnapshotOptions withWorkers(int v) {
        return new SnapshotOptions(slot, stream, v, unitPages, keepSlotOnFailure, workerConfig, progress, progressInterval);
    }

    public SnapshotOptions withUnitPages(long v) {
        return new SnapshotOptions(slot, stream, workers, v, keepSlotOnFailure, workerConfig, progress, progressInterval);
    }

    public SnapshotOptions withKeepSlotOnFailure(boolean v) {
        return new SnapshotOptions(slot, stream, workers, unitPages, v, workerConfig, progress, progressInterval);
    }

    public SnapshotOptions withWorkerConfig(ConnectionConfig v) {
        return new SnapshotOptions(slot, stream, workers, unitPages, keepSlotOnFailure, v, progress, progressInterval);
    }

    public SnapshotOptions withProgress(SnapshotProgressListener v, Duration interval) {
        return new SnapshotOptions(slot, stream, workers, unitPages, keepSlotOnFailure, workerConfig, v, interval);
    }
}
