package io.pgrepl.client.stream;

/**
 * The slot guard stopped the stream: the slot was about to lose WAL it still needs
 * ({@code safe_wal_size} below, or retained WAL above, the guard's fail threshold, or
 * {@code wal_status} already {@code unreserved}). Raised before the server would invalidate the
 * slot, so the slot is still usable: the consumer that fell behind must catch up (or the limit
 * be raised) before streaming again. Never transient: reconnecting would only restart the
 * consumer that could not keep up, while the server keeps removing WAL.
 */
public final class SlotGuardTrippedException extends ReplicationException {
    private static final long serialVersionUID = 1L;

    private final String slotName;
    private final String walStatus;
    private final Long safeWalSize;
    private final Long retainedWal;
    private final String threshold;

    /**
     * @param slotName    the guarded slot
     * @param walStatus   the slot's {@code wal_status} when the guard tripped (13+), or null
     * @param safeWalSize bytes of WAL that may still be written before the slot is at risk, or null (unlimited, before 13)
     * @param retainedWal bytes of WAL the slot holds back ({@code current LSN - restart_lsn}), or null
     * @param threshold   the threshold crossed, as the guard states it (e.g. {@code safe_wal_size < 48 MB})
     */
    public SlotGuardTrippedException(String slotName, String walStatus, Long safeWalSize, Long retainedWal,
                                     String threshold) {
        super(message(slotName, walStatus, safeWalSize, retainedWal, threshold), null);
        this.slotName = slotName;
        this.walStatus = walStatus;
        this.safeWalSize = safeWalSize;
        this.retainedWal = retainedWal;
        this.threshold = threshold;
    }

    /** {@return the guarded slot} */
    public String slotName() {
        return slotName;
    }

    /** {@return the slot's wal_status when the guard tripped, or null before PostgreSQL 13} */
    public String walStatus() {
        return walStatus;
    }

    /** {@return safe_wal_size in bytes when the guard tripped, or null (no max_slot_wal_keep_size, or before 13)} */
    public Long safeWalSize() {
        return safeWalSize;
    }

    /** {@return the WAL the slot retained, in bytes, when the guard tripped, or null} */
    public Long retainedWal() {
        return retainedWal;
    }

    /** {@return the threshold that was crossed} */
    public String threshold() {
        return threshold;
    }

    @Override
    public boolean isTransient() {
        return false;
    }

    private static String message(String slot, String walStatus, Long safe, Long retained, String threshold) {
        return "slot guard stopped the stream of slot \"" + slot + "\": " + threshold + " (safe_wal_size "
                + bytes(safe) + ", retained WAL " + bytes(retained) + ", wal_status " + walStatus
                + "); the slot is not invalidated yet: make the consumer keep up, or raise max_slot_wal_keep_size,"
                + " before streaming again";
    }

    /** Bytes as MB with one decimal, or "unknown". */
    static String bytes(Long b) {
        return b == null ? "unknown" : String.format(java.util.Locale.ROOT, "%.1f MB", b / 1048576.0);
    }
}
