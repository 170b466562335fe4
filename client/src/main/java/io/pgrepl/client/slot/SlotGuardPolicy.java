package io.pgrepl.client.slot;

import java.time.Duration;
import java.util.Locale;

/**
 * When the slot guard acts. Three ordered steps (warn, act on a running snapshot, fail the stream),
 * each reached when {@code safe_wal_size} (13+, with {@code max_slot_wal_keep_size} set) falls
 * below its threshold or the retained WAL ({@code current LSN - restart_lsn}) rises above its
 * threshold, whichever is configured and crossed first. A {@code wal_status} of
 * {@code unreserved} (the next checkpoint removes the slot's WAL) or {@code lost} is the fail
 * step whatever the thresholds. Thresholds must be ordered: warn is crossed first, fail last.
 */
public final class SlotGuardPolicy {
    /** What the guard does to a running snapshot at the snapshot step. */
    public enum SnapshotAction {
        /** Pause it; resumed when the slot is below the threshold again. */
        PAUSE,
        /** Abort it. */
        ABORT
    }

    final long warnSafeBelow;
    final long snapshotSafeBelow;
    final long failSafeBelow;
    final long warnRetainedAbove;
    final long snapshotRetainedAbove;
    final long failRetainedAbove;
    final SnapshotAction snapshotAction;
    final Duration idleTimeoutWarning;

    private SlotGuardPolicy(Builder b) {
        warnSafeBelow = b.safe[0];
        snapshotSafeBelow = b.safe[1];
        failSafeBelow = b.safe[2];
        warnRetainedAbove = b.retained[0];
        snapshotRetainedAbove = b.retained[1];
        failRetainedAbove = b.retained[2];
        snapshotAction = b.snapshotAction;
        idleTimeoutWarning = b.idleTimeoutWarning;
    }

    /** {@return a builder with no thresholds (only wal_status unreserved/lost fails), pausing snapshots} */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Thresholds as fractions of {@code max_slot_wal_keep_size}, the usual setup: warn when half of it is
     * used, act on the snapshot at three quarters, fail at 90 %.
     *
     * @param maxSlotWalKeepSize the server's {@code max_slot_wal_keep_size}, in bytes
     * @return the policy
     */
    public static SlotGuardPolicy ofKeepSize(long maxSlotWalKeepSize) {
        if (maxSlotWalKeepSize <= 0) throw new IllegalArgumentException("max_slot_wal_keep_size must be positive");
        return builder().warnWhenSafeWalBelow(maxSlotWalKeepSize / 2)
                .snapshotWhenSafeWalBelow(maxSlotWalKeepSize / 4).failWhenSafeWalBelow(maxSlotWalKeepSize / 10).build();
    }

    /** Step 0 none, 1 warn, 2 snapshot, 3 fail. */
    int step(SlotHealth h) {
        if ("unreserved".equals(h.walStatus()) || h.invalidated()) return 3;
        for (int step = 3; step >= 1; step--) {
            if (crossed(h, step) != null) return step;
        }
        return 0;
    }

    /** The crossed threshold of {@code step} as a sentence, or null. */
    String crossed(SlotHealth h, int step) {
        if (step == 3 && "unreserved".equals(h.walStatus())) return "wal_status is unreserved";
        if (step == 3 && h.invalidated()) return "the slot is already invalidated";
        long safeBelow = step == 1 ? warnSafeBelow : step == 2 ? snapshotSafeBelow : failSafeBelow;
        long retainedAbove = step == 1 ? warnRetainedAbove : step == 2 ? snapshotRetainedAbove : failRetainedAbove;
        if (safeBelow > 0 && h.safeWalSize() != null && h.safeWalSize() < safeBelow) {
            return "safe_wal_size < " + mb(safeBelow);
        }
        if (retainedAbove > 0 && h.retainedWal() != null && h.retainedWal() > retainedAbove) {
            return "retained WAL > " + mb(retainedAbove);
        }
        return null;
    }

    static String mb(long bytes) {
        return String.format(Locale.ROOT, "%.1f MB", bytes / 1048576.0);
    }

    /** How a {@link SlotGuardPolicy} is made. Sizes in bytes; 0 leaves a threshold unset. */
    public static final class Builder {
        private final long[] safe = new long[3];
        private final long[] retained = new long[3];
        private SnapshotAction snapshotAction = SnapshotAction.PAUSE;
        private Duration idleTimeoutWarning = Duration.ofMinutes(5);

        private Builder() {}

        /** @param bytes warn when safe_wal_size is below @return this builder */
        public Builder warnWhenSafeWalBelow(long bytes) { safe[0] = size(bytes); return this; }

        /** @param bytes pause/abort a running snapshot when safe_wal_size is below @return this builder */
        public Builder snapshotWhenSafeWalBelow(long bytes) { safe[1] = size(bytes); return this; }

        /** @param bytes fail the stream when safe_wal_size is below @return this builder */
        public Builder failWhenSafeWalBelow(long bytes) { safe[2] = size(bytes); return this; }

        /** @param bytes warn when the retained WAL is above @return this builder */
        public Builder warnWhenRetainedWalAbove(long bytes) { retained[0] = size(bytes); return this; }

        /** @param bytes pause/abort a running snapshot when the retained WAL is above @return this builder */
        public Builder snapshotWhenRetainedWalAbove(long bytes) { retained[1] = size(bytes); return this; }

        /** @param bytes fail the stream when the retained WAL is above @return this builder */
        public Builder failWhenRetainedWalAbove(long bytes) { retained[2] = size(bytes); return this; }

        /** @param action what the snapshot step does (default PAUSE) @return this builder */
        public Builder snapshotAction(SnapshotAction action) { snapshotAction = java.util.Objects.requireNonNull(action); return this; }

        /**
         * @param before warn this long before idle_replication_slot_timeout (18) runs out for the inactive slot
         *               (default 5 minutes; zero: never)
         * @return this builder
         */
        public Builder idleTimeoutWarning(Duration before) {
            if (before.isNegative()) throw new IllegalArgumentException("negative: " + before);
            idleTimeoutWarning = before;
            return this;
        }

        /**
         * @return the policy
         * @throws IllegalArgumentException if the steps are out of order (fail must be crossed last)
         */
        public SlotGuardPolicy build() {
            ordered(safe, true, "safe_wal_size");
            ordered(retained, false, "retained WAL");
            return new SlotGuardPolicy(this);
        }

        private static void ordered(long[] t, boolean below, String what) {
            for (int i = 0; i < 3; i++) {
                for (int j = i + 1; j < 3; j++) {
                    if (t[i] > 0 && t[j] > 0 && (below ? t[j] > t[i] : t[j] < t[i])) {
                        throw new IllegalArgumentException(what + " thresholds out of order: step " + (j + 1) + " ("
                                + mb(t[j]) + ") would be crossed before step " + (i + 1) + " (" + mb(t[i]) + ")");
                    }
                }
            }
        }

        private static long size(long bytes) {
            if (bytes < 0) throw new IllegalArgumentException("negative size: " + bytes);
            return bytes;
        }
    }
}
