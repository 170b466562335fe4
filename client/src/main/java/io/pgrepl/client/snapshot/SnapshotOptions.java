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
 * @param existingSlot      copy under a fresh snapshot exported by an ordinary REPEATABLE READ
 *                          connection instead of creating the slot: a slot of that name may exist
 *                          and is never created, dropped or moved (default false). The result's
 *                          consistent point is then the WAL position when the snapshot was taken;
 *                          changes committed before it may also stream from the slot, so a caller
 *                          streams from the slot's own position and lets later events win.
 */
public record SnapshotOptions(CreateSlotOptions slot, LogicalReplicationOptions stream, int workers, long unitPages,
                              boolean keepSlotOnFailure, ConnectionConfig workerConfig, SnapshotProgressListener progress,
                              Duration progressInterval, boolean existingSlot) {
    /**
     * Checks the combination.
     *
     * @param slot              the slot to create (logical, pgoutput); its snapshot is always exported
     * @param stream            the stream that follows (publications, binary, and START_REPLICATION)
     * @param workers           parallel COPY connections, 1 to 64
     * @param unitPages         pages per ctid range for splitting large tables, positive
     * @param keepSlotOnFailure keep a permanent slot created for a snapshot that then failed
     * @param workerConfig      configuration of the workers' (non-replication) connections, or null
     * @param progress          progress listener, or null
     * @param progressInterval  how often progress is reported, positive
     * @throws IllegalArgumentException for a physical slot, a slot other than the stream's or a value out of range
     * @throws SnapshotException (SLOT_NOT_CREATED) if the slot would not export its snapshot
     */
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

    /**
     * As before {@code existingSlot} existed: the slot is created with an exported snapshot.
     *
     * @param slot              the slot to create (logical, pgoutput); its snapshot is always exported
     * @param stream            the stream that follows (publications, binary, and START_REPLICATION)
     * @param workers           parallel COPY connections, 1 to 64
     * @param unitPages         pages per ctid range for splitting large tables, positive
     * @param keepSlotOnFailure keep a permanent slot created for a snapshot that then failed
     * @param workerConfig      configuration of the workers' (non-replication) connections, or null
     * @param progress          progress listener, or null
     * @param progressInterval  how often progress is reported, positive
     */
    public SnapshotOptions(CreateSlotOptions slot, LogicalReplicationOptions stream, int workers, long unitPages,
                           boolean keepSlotOnFailure, ConnectionConfig workerConfig, SnapshotProgressListener progress,
                           Duration progressInterval) {
        this(slot, stream, workers, unitPages, keepSlotOnFailure, workerConfig, progress, progressInterval, false);
    }

    /**
     * The same options copying under a fresh exported snapshot while a slot of that name is kept as
     * it is (never created, dropped or moved), or creating the slot (false, the default).
     *
     * @param v copy without creating the slot
     * @return the new options
     */
    public SnapshotOptions withExistingSlot(boolean v) {
        return new SnapshotOptions(slot, stream, workers, unitPages, keepSlotOnFailure, workerConfig, progress, progressInterval, v);
    }

    /**
     * Defaults for creating {@code stream}'s slot (pgoutput, <b>temporary</b>) and copying through it.
     *
     * <p>The slot is temporary unless asked otherwise: it lives as long as the replication
     * connection that created it, so a program that ends (or fails) leaves no slot behind to hold
     * WAL on the server. That suits {@link InitialSnapshot#start} (copy, then stream on the same
     * connection). A slot that must outlive the connection (streaming elsewhere after
     * {@link InitialSnapshot#copy}, resuming after a restart) is asked for explicitly:
     * {@code of(stream).withSlot(of(stream).slot().withTemporary(false))}.
     *
     * @param stream the stream that follows; its slot is the one created
     * @return a temporary pgoutput slot, 4 workers, 4096-page units, the slot dropped on failure, progress off
     */
    public static SnapshotOptions of(LogicalReplicationOptions stream) {
        return new SnapshotOptions(CreateSlotOptions.logical(stream.slotName(), "pgoutput").withTemporary(true), stream, 4, 4096,
                false, null, null, Duration.ofSeconds(1));
    }

    /**
     * The check a caller that may or may not create the slot runs first (the CLI's
     * {@code --snapshot} without {@code --create-slot}): refused before anything runs.
     *
     * @param mode         the snapshot mode
     * @param creatingSlot whether the caller creates the slot now
     * @throws SnapshotException (SLOT_NOT_CREATED) if the mode copies but the slot is not being created
     */
    public static void requireSlotCreation(InitialSnapshotMode mode, boolean creatingSlot) {
        if (mode.copies() && !creatingSlot) {
            throw new SnapshotException(SnapshotException.Kind.SLOT_NOT_CREATED, "an initial snapshot needs the slot to be"
                    + " created now: its exported snapshot exists only at slot creation (create the slot, or stream without"
                    + " a snapshot)", null, null);
        }
    }

    /** {@return whether COPY reads binary, as the stream asks for pgoutput binary} */
    public boolean binary() {
        return Boolean.TRUE.equals(stream.binary());
    }

    /**
     * The same options with another slot to create.
     *
     * @param v a logical slot named as the stream's
     * @return the new options
     */
    public SnapshotOptions withSlot(CreateSlotOptions v) {
        return new SnapshotOptions(v, stream, workers, unitPages, keepSlotOnFailure, workerConfig, progress, progressInterval, existingSlot);
    }

    /**
     * The same options with another number of parallel COPY connections.
     *
     * @param v 1 to 64
     * @return the new options
     */
    public SnapshotOptions withWorkers(int v) {
        return new SnapshotOptions(slot, stream, v, unitPages, keepSlotOnFailure, workerConfig, progress, progressInterval, existingSlot);
    }

    /**
     * The same options with another split size for large tables.
     *
     * @param v pages per ctid range, positive (PostgreSQL 14+)
     * @return the new options
     */
    public SnapshotOptions withUnitPages(long v) {
        return new SnapshotOptions(slot, stream, workers, v, keepSlotOnFailure, workerConfig, progress, progressInterval, existingSlot);
    }

    /**
     * The same options with the slot kept or dropped after a failure.
     *
     * @param v keep a permanent slot after a failure
     * @return the new options
     */
    public SnapshotOptions withKeepSlotOnFailure(boolean v) {
        return new SnapshotOptions(slot, stream, workers, unitPages, v, workerConfig, progress, progressInterval, existingSlot);
    }

    /**
     * The same options with another configuration for the workers' connections.
     *
     * @param v the configuration, or null for the replication connection's without replication
     * @return the new options
     */
    public SnapshotOptions withWorkerConfig(ConnectionConfig v) {
        return new SnapshotOptions(slot, stream, workers, unitPages, keepSlotOnFailure, v, progress, progressInterval, existingSlot);
    }

    /**
     * The same options with another progress listener.
     *
     * @param v        the listener, or null
     * @param interval how often it is called, positive
     * @return the new options
     */
    public SnapshotOptions withProgress(SnapshotProgressListener v, Duration interval) {
        return new SnapshotOptions(slot, stream, workers, unitPages, keepSlotOnFailure, workerConfig, v, interval, existingSlot);
    }
}
