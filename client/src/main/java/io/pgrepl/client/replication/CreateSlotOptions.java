package io.pgrepl.client.replication;

import java.util.Objects;

/**
 * What to create with CREATE_REPLICATION_SLOT. Start from {@link #logical} or {@link #physical}
 * and refine with the {@code with...} methods; each returns a new value. Options the target
 * server cannot take are refused before anything is sent.
 *
 * @param snapshot null leaves the server default (export)
 */
public record CreateSlotOptions(String slotName, boolean logical, String plugin, boolean temporary,
                                SnapshotMode snapshot, boolean twoPhase, boolean failover, boolean reserveWal) {
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

    public static CreateSlotOptions logical(String slotName, String plugin) {
        return new CreateSlotOptions(slotName, true, plugin, false, null, false, false, false);
    }

    public static CreateSlotOptions physical(String slotName) {
        return new CreateSlotOptions(slotName, false, null, false, null, false, false, false);
    }

    public CreateSlotOptions withTemporary(boolean v) {
        return new CreateSlotOptions(slotName, logical, plugin, v, snapshot, twoPhase, failover, reserveWal);
    }

    public CreateSlotOptions withSnapshot(SnapshotMode v) {
        return new CreateSlotOptions(slotName, logical, plugin, temporary, v, twoPhase, failover, reserveWal);
    }

    /** PG15+. */
    public CreateSlotOptions withTwoPhase(boolean v) {
        return new CreateSlotOptions(slotName, logical, plugin, temporary, snapshot, v, failover, reserveWal);
    }

    /** PG17+. */
    public CreateSlotOptions withFailover(boolean v) {
        return new CreateSlotOptions(slotName, logical, plugin, temporary, snapshot, twoPhase, v, reserveWal);
    }

    public CreateSlotOptions withReserveWal(boolean v) {
        return new CreateSlotOptions(slotName, logical, plugin, temporary, snapshot, twoPhase, failover, v);
    }
}
