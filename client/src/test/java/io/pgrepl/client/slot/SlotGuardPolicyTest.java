package io.pgrepl.client.slot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.stream.SlotGuardTrippedException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The guard's decisions on given slot readings (no server: the thresholds and their order). */
class SlotGuardPolicyTest {
    private static final long MB = 1024 * 1024;

    static SlotHealth health(String walStatus, Long safe, Long retained) {
        return new SlotHealth(Instant.EPOCH, 18, false, "s", "pgoutput", "logical", "postgres", false, true, 42, null,
                0, 0, 0, retained, retained, null, walStatus, safe, false, null, null, null, null, 128 * MB, 0L);
    }

    static SlotGuardPolicy policy() {
        return SlotGuardPolicy.builder().warnWhenSafeWalBelow(96 * MB).snapshotWhenSafeWalBelow(72 * MB)
                .failWhenSafeWalBelow(48 * MB).failWhenRetainedWalAbove(1024 * MB).build();
    }

    @Test
    void stepsFollowSafeWalSizeRetainedWalAndWalStatus() {
        SlotGuardPolicy p = policy();
        assertEquals(0, p.step(health("reserved", 100 * MB, 10 * MB)));
        assertEquals(1, p.step(health("reserved", 80 * MB, 10 * MB)));
        assertEquals(2, p.step(health("reserved", 50 * MB, 10 * MB)));
        assertEquals(3, p.step(health("reserved", 40 * MB, 10 * MB)));
        assertEquals(3, p.step(health("reserved", null, 2048 * MB)), "retained WAL alone, no keep size");
        assertEquals(3, p.step(health("unreserved", 100 * MB, 10 * MB)), "unreserved is always the last step");
        assertEquals(0, p.step(health(null, null, 10 * MB)), "before 13: nothing known but the retained WAL");
    }

    @Test
    void outOfOrderThresholdsAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SlotGuardPolicy.builder().warnWhenSafeWalBelow(48 * MB).failWhenSafeWalBelow(96 * MB).build());
        assertTrue(e.getMessage().contains("out of order"), e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> SlotGuardPolicy.builder().warnWhenRetainedWalAbove(10 * MB).failWhenRetainedWalAbove(5 * MB).build());
        assertThrows(IllegalArgumentException.class, () -> SlotGuardPolicy.builder().warnWhenSafeWalBelow(-1));
    }

    @Test
    void aJumpTakesEverySkippedStepInOrderOnceAndATrippedGuardStaysQuiet() {
        try (SlotMonitor monitor = SlotMonitor.builder(ConnectionConfig.parse("postgresql://u@127.0.0.1:1/db")).slot("s").build()) {
            List<SlotGuardTrippedException> failed = new ArrayList<>();
            List<String> calls = new ArrayList<>();
            SlotGuard guard = SlotGuard.attach(monitor, "s", policy(), failed::add);
            guard.snapshot(new SnapshotControl() {
                @Override
                public void pause() {
                    calls.add("pause");
                }

                @Override
                public void abort(String reason) {
                    calls.add("abort");
                }

                @Override
                public void resume() {
                    calls.add("resume");
                }
            });
            List<GuardEvent.Kind> kinds = new ArrayList<>();
            guard.addListener(e -> kinds.add(e.kind()));

            guard.onHealth(List.of(health("reserved", 60 * MB, 10 * MB)));
            assertEquals(List.of(GuardEvent.Kind.WARNED, GuardEvent.Kind.SNAPSHOT_PAUSED), kinds);
            guard.onHealth(List.of(health("reserved", 90 * MB, 10 * MB)));
            assertEquals(List.of("pause", "resume"), calls, "back above the snapshot threshold");
            assertNull(guard.tripped());

            guard.onHealth(List.of(health("reserved", 30 * MB, 10 * MB)));
            assertEquals(List.of(GuardEvent.Kind.WARNED, GuardEvent.Kind.SNAPSHOT_PAUSED, GuardEvent.Kind.SNAPSHOT_RESUMED,
                    GuardEvent.Kind.SNAPSHOT_PAUSED, GuardEvent.Kind.TRIPPED), kinds);
            assertEquals(1, failed.size());
            assertEquals(30 * MB, failed.get(0).safeWalSize());
            assertEquals("safe_wal_size < 48.0 MB", failed.get(0).threshold());

            guard.onHealth(List.of(health("unreserved", -1L, 10 * MB)));
            assertEquals(1, failed.size(), "tripped once");
            assertEquals(5, kinds.size());
        }
    }

    @Test
    void slotNamesThatCouldNotBeSlotsAreRefusedNotQuoted() {
        SlotMonitor.Builder b = SlotMonitor.builder(ConnectionConfig.parse("postgresql://u@127.0.0.1:1/db"));
        assertThrows(IllegalArgumentException.class, () -> b.slot("x'); DROP TABLE t; --"));
        assertThrows(IllegalArgumentException.class, () -> b.slot("Upper"));
        b.slot("ok_slot_1");
    }
}
