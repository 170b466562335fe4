package io.pgrepl.client.slot;

import java.time.Instant;

/**
 * One slot as the server's own views saw it at one poll ({@code pg_replication_slots}, joined with
 * {@code pg_stat_replication} by {@code active_pid} and, 14+, {@code pg_stat_replication_slots}).
 * Immutable. A field the server's major does not have is null (never a made-up zero).
 *
 * @param polledAt           the server's {@code now()} at the poll
 * @param serverMajor        the server's major version
 * @param inRecovery         the server is a standby (positions then come from {@code pg_last_wal_replay_lsn()})
 * @param slotName           {@code slot_name}
 * @param plugin             {@code plugin}; null for a physical slot
 * @param slotType           {@code slot_type}: logical or physical
 * @param database           {@code database}; null for a physical slot
 * @param temporary          {@code temporary}
 * @param active             {@code active}: a walsender streams from it
 * @param activePid          {@code active_pid}, or null
 * @param clientAddr         the streaming client's address ({@code pg_stat_replication.client_addr}); null when
 *                           inactive, over a Unix socket, or hidden from a role without pg_read_all_stats
 * @param currentLsn         {@code pg_current_wal_lsn()} (on a standby {@code pg_last_wal_replay_lsn()}), or 0
 * @param restartLsn         {@code restart_lsn}, or 0 when unset (invalidated, or never reserved)
 * @param confirmedFlushLsn  {@code confirmed_flush_lsn}, or 0 (physical slots)
 * @param retainedWal        bytes the slot holds back: current LSN − restart_lsn; null without a restart_lsn
 * @param lagBytes           decoding lag: current LSN − confirmed_flush_lsn; null for physical slots
 * @param lagSeconds         {@code pg_stat_replication.replay_lag} of the slot's walsender, in seconds; null when
 *                           inactive or when the server has no fresh measure (see SlotMonitor)
 * @param walStatus          {@code wal_status} (13+): reserved, extended, unreserved, lost
 * @param safeWalSize        {@code safe_wal_size} (13+) in bytes; null when max_slot_wal_keep_size is -1
 * @param conflicting        {@code conflicting} (16+; logical slots), else null
 * @param invalidationReason {@code invalidation_reason} (17+), else null
 * @param inactiveSince      {@code inactive_since} (17+), else null
 * @param inactiveSeconds    now − inactive_since in seconds (17+), else null
 * @param spill              spill and stream counters from pg_stat_replication_slots (14+), else null
 * @param maxSlotWalKeepSize {@code max_slot_wal_keep_size} in bytes (13+), -1 for unlimited, null before 13
 * @param idleTimeoutSeconds {@code idle_replication_slot_timeout} in seconds (18+; 0 = off), else null
 */
public record SlotHealth(Instant polledAt, int serverMajor, boolean inRecovery, String slotName, String plugin,
                         String slotType, String database, boolean temporary, boolean active, Integer activePid,
                         String clientAddr, long currentLsn, long restartLsn, long confirmedFlushLsn, Long retainedWal,
                         Long lagBytes, Double lagSeconds, String walStatus, Long safeWalSize, Boolean conflicting,
                         String invalidationReason, Instant inactiveSince, Double inactiveSeconds, SpillStats spill,
                         Long maxSlotWalKeepSize, Long idleTimeoutSeconds) {

    /**
     * Decoding statistics from {@code pg_stat_replication_slots} (14+), cumulative since {@code stats_reset}.
     *
     * @param spillTxns   transactions spilled to disk
     * @param spillCount  times transactions were spilled
     * @param spillBytes  bytes spilled
     * @param streamTxns  in-progress transactions streamed to the client
     * @param streamCount times in-progress transactions were streamed
     * @param streamBytes bytes streamed in progress
     * @param totalTxns   transactions decoded and sent
     * @param totalBytes  bytes decoded and sent
     */
    public record SpillStats(long spillTxns, long spillCount, long spillBytes, long streamTxns, long streamCount,
                             long streamBytes, long totalTxns, long totalBytes) {}

    /** {@return true once the server invalidated the slot (wal_status lost, or an invalidation_reason)} */
    public boolean invalidated() {
        return "lost".equals(walStatus) || invalidationReason != null;
    }

    /**
     * Seconds left before {@code idle_replication_slot_timeout} (18) may invalidate this inactive slot (at the
     * next checkpoint after it runs out), or null when it does not apply: before 18, timeout off, slot active.
     *
     * @return the seconds left, possibly negative, or null
     */
    public Double idleTimeoutRemainingSeconds() {
        if (idleTimeoutSeconds == null || idleTimeoutSeconds <= 0 || active || inactiveSeconds == null) return null;
        return idleTimeoutSeconds - inactiveSeconds;
    }
}
