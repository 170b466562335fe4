package io.pgrepl.client.replication;

import java.util.Objects;

/**
 * What to create with CREATE_REPLICATION_SLOT. Start from {@link #logical} or {@link #physical}
 * and refine with the {@code with...} methods; each returns a new value. Options the target
 * server cannot take are refused before anything is sent.
 *
 * @param slotName   the slot name
 * @param logical    true for a logical slot
 * @param plugin     the output plugin (logical slots), else null
 * @param temporary  dropped when the connection ends
 * @param snapshot   null leaves the server default (export)
 * @param twoPhase   decode prepared transactions at PREPARE (PG15+)
 * @param failover   synchronized to standbys (PG17+)
 * @param reserveWal reserve WAL at once (physical slots)
 */
public record CreateSlotOptions(String slotName, boolean logical, String plugin, boolean temporary,
                                SnapshotMode snapshot, boolean twoPhase, boolean failover, boolean reserveWal) {
    /**
     * Checks the combination: a logical slot needs a plugin and takes no RESERVE_WAL; a physical
     * slot takes no plugin, snapshot, two_phase or failover.
     *
     * @param slotName   the slot name
     * @param logical    true for a logical slot
     * @param plugin     the output plugin (logical slots), else null
     * @param temporary  dropped when the connection ends
     * @param snapshot   null leaves the server default (export)
     * @param twoPhase   decode prepared transactions at PREPARE (PG15+)
     * @param failover   synchronized to standbys (PG17+)
     * @param reserveWal reserve WAL at once (physical slots)
     * @throws IllegalArgumentException for an invalid name or combination
     */
    public CreateSlotOptions {
        Identifiers.requireSlotName(slotName);
        if (logical) {
            Objects.requireNonNull(plugin, "plugin");
            Identifiers.requirePluginName(plugin);
            if (reserveWal) throw new IllegalArgumentException("RESERVE_WAL applies to physical slots only");
        } else if (plugin != null || snapshot != null || twoPhase || failover) {
            throw new IllegalArgumentException("plugin, snapshot, two_phase and failover apply to logical slots only");
        }
    }

    /**
     * A logical slot.
     *
     * @param slotName the slot name (lower-case letters, digits, underscore)
     * @param plugin   the output plugin, e.g. {@code pgoutput}
     * @return the options
     */
    public static CreateSlotOptions logical(String slotName, String plugin) {
        return new CreateSlotOptions(slotName, true, plugin, false, null, false, false, false);
    }

    /**
     * A physical slot.
     *
     * @param slotName the slot name (lower-case letters, digits, underscore)
     * @return the options
     */
    public static CreateSlotOptions physical(String slotName) {
        return new CreateSlotOptions(slotName, false, null, false, null, false, false, false);
    }

    /**
     * A temporary slot is dropped when the connection ends (or on error).
     *
     * @param v true for TEMPORARY
     * @return a copy with the option set
     */
    public CreateSlotOptions withTemporary(boolean v) {
        return new CreateSlotOptions(slotName, logical, plugin, v, snapshot, twoPhase, failover, reserveWal);
    }

    /**
     * What to do with the snapshot at the slot's consistent point.
     *
     * @param v export, use or nothing; null for the server default (export)
     * @return a copy with the option set
     */
    public CreateSlotOptions withSnapshot(SnapshotMode v) {
        return new CreateSlotOptions(slotName, logical, plugin, temporary, v, twoPhase, failover, reserveWal);
    }

    /**
     * Decode prepared transactions at PREPARE (PG15+).
     *
     * @param v true for TWO_PHASE
     * @return a copy with the option set
     */
    public CreateSlotOptions withTwoPhase(boolean v) {
        return new CreateSlotOptions(slotName, logical, plugin, temporary, snapshot, v, failover, reserveWal);
    }

    /**
     * Synchronize the slot to standbys (PG17+).
     *
     * @param v true for FAILOVER
     * @return a copy with the option set
     */
    public CreateSlotOptions withFailover(boolean v) {
        return new CreateSlotOptions(slotName, logical, plugin, temporary, snapshot, twoPhase, v, reserveWal);
    }

    /**
     * Reserve WAL at once (physical slots).
     *
     * @param v true for RESERVE_WAL
     * @return a copy with the option set
     */
    public CreateSlotOptions withReserveWal(boolean v) {
        return new CreateSlotOptions(slotName, logical, plugin, temporary, snapshot, twoPhase, failover, v);
    }
}
