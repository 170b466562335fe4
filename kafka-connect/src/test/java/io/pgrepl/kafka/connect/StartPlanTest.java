package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.kafka.connect.PgreplConnectorConfig.SlotLostHandling;
import io.pgrepl.kafka.connect.PgreplConnectorConfig.SnapshotMode;
import io.pgrepl.kafka.connect.StartPlan.Action;
import io.pgrepl.kafka.connect.StartPlan.Slot;
import io.pgrepl.kafka.connect.offsets.Position;
import java.util.Map;
import org.apache.kafka.connect.errors.ConnectException;
import org.junit.jupiter.api.Test;

/** The start rules alone: offsets and slot positions in, an action out. */
class StartPlanTest {
    private static final long C1 = 0x1_0000_0000L;
    private static final Map<String, Object> STREAMING = Position.offset(C1 + 500, 3);
    private static final Map<String, Object> INTERRUPTED = Position.snapshotRead(C1, 41);

    private static StartPlan plan(SnapshotMode mode, SlotLostHandling h, Map<String, Object> stored, Slot slot) {
        return StartPlan.decide(mode, h, stored, slot, "s");
    }

    private static Slot idle(long confirmed) {
        return new Slot(false, confirmed, confirmed - 100);
    }

    @Test
    void anInterruptedCopyKeepsTheSlotAndStreamsFromTheFirstPoint() {
        StartPlan p = plan(SnapshotMode.INITIAL, SlotLostHandling.FAIL, INTERRUPTED, idle(C1));
        assertEquals(Action.SNAPSHOT_EXISTING_SLOT, p.action());
        assertEquals(C1, p.streamFrom());
        // Held by the interrupted task's walsender: still kept (streaming waits for it).
        assertEquals(Action.SNAPSHOT_EXISTING_SLOT,
                plan(SnapshotMode.WHEN_NEEDED, SlotLostHandling.FAIL, INTERRUPTED, new Slot(true, C1, C1)).action());
        // A second interruption carries the same point on: each read's offset names it.
        assertEquals(C1, Position.snapshotStreamFrom(Position.snapshotRead(p.streamFrom(), 7)));
    }

    @Test
    void alwaysCopiesAgainAtEveryStartWithOffsetsAndSlotOrWithout() {
        StartPlan p = plan(SnapshotMode.ALWAYS, SlotLostHandling.FAIL, STREAMING, idle(C1 + 500));
        assertEquals(Action.SNAPSHOT_EXISTING_SLOT, p.action());
        assertEquals(C1 + 500, p.streamFrom());
        // A slot gone or confirmed past the offsets fails nothing: the copy covers what it lost.
        assertEquals(Action.SNAPSHOT_NEW_SLOT, plan(SnapshotMode.ALWAYS, SlotLostHandling.FAIL, STREAMING, null).action());
        assertEquals(Action.SNAPSHOT_EXISTING_SLOT,
                plan(SnapshotMode.ALWAYS, SlotLostHandling.FAIL, STREAMING, idle(C1 + 900)).action());
        assertEquals(Action.SNAPSHOT_NEW_SLOT, plan(SnapshotMode.ALWAYS, SlotLostHandling.FAIL, null, null).action());
        assertThrows(ConnectException.class, () -> plan(SnapshotMode.ALWAYS, SlotLostHandling.FAIL, STREAMING,
                new Slot(true, C1, C1)), "another consumer's active slot is refused");
    }

    @Test
    void anInterruptedCopyWhoseSlotMovedOrWentIsLost() {
        ConnectException e = assertThrows(ConnectException.class,
                () -> plan(SnapshotMode.INITIAL, SlotLostHandling.FAIL, INTERRUPTED, idle(C1 + 1)));
        assertTrue(e.getMessage().contains("slot.lost.handling"), e.getMessage());
        assertThrows(ConnectException.class, () -> plan(SnapshotMode.INITIAL, SlotLostHandling.FAIL, INTERRUPTED, null));
        assertEquals(Action.SNAPSHOT_NEW_SLOT, plan(SnapshotMode.INITIAL, SlotLostHandling.SNAPSHOT, INTERRUPTED, null).action());
    }

    @Test
    void noOffsetsAndAnExistingSlotCopiesBesideItNeverDropsIt() {
        StartPlan p = plan(SnapshotMode.INITIAL, SlotLostHandling.FAIL, null, idle(C1 + 9));
        assertEquals(Action.SNAPSHOT_EXISTING_SLOT, p.action());
        assertEquals(C1 + 9, p.streamFrom());
        assertThrows(ConnectException.class, () -> plan(SnapshotMode.INITIAL, SlotLostHandling.FAIL, null, new Slot(true, C1, C1)),
                "another consumer's active slot is refused");
        assertEquals(Action.SNAPSHOT_NEW_SLOT, plan(SnapshotMode.INITIAL, SlotLostHandling.FAIL, null, null).action());
        assertEquals(Action.STREAM, plan(SnapshotMode.NEVER, SlotLostHandling.FAIL, null, idle(C1)).action());
        // Debezium's no_data is never: no copy, with or without a slot.
        assertEquals(Action.STREAM, plan(SnapshotMode.NO_DATA, SlotLostHandling.FAIL, null, idle(C1)).action());
        assertEquals(Action.STREAM, plan(SnapshotMode.NO_DATA, SlotLostHandling.FAIL, null, null).action());
    }

    @Test
    void streamingOffsetsNeedASlotNotConfirmedPastThem() {
        assertEquals(Action.STREAM, plan(SnapshotMode.INITIAL, SlotLostHandling.FAIL, STREAMING, idle(C1 + 500)).action());
        assertEquals(Action.STREAM, plan(SnapshotMode.NEVER, SlotLostHandling.FAIL, STREAMING, idle(C1)).action());
        for (SnapshotMode m : new SnapshotMode[] {SnapshotMode.INITIAL, SnapshotMode.NEVER}) {
            ConnectException gone = assertThrows(ConnectException.class, () -> plan(m, SlotLostHandling.FAIL, STREAMING, null));
            assertTrue(gone.getMessage().contains("does not exist"), gone.getMessage());
            ConnectException moved = assertThrows(ConnectException.class,
                    () -> plan(m, SlotLostHandling.FAIL, STREAMING, idle(C1 + 501)));
            assertTrue(moved.getMessage().contains("past the stored offsets"), moved.getMessage());
        }
        StartPlan again = plan(SnapshotMode.INITIAL, SlotLostHandling.SNAPSHOT, STREAMING, idle(C1 + 900));
        assertEquals(Action.SNAPSHOT_EXISTING_SLOT, again.action());
        assertEquals(C1 + 900, again.streamFrom());
        assertEquals(Action.SNAPSHOT_NEW_SLOT, plan(SnapshotMode.NEVER, SlotLostHandling.SNAPSHOT, STREAMING, null).action());
    }

    /** The re-snapshot's new slot, with the old slot's offsets still stored, means copy again. */
    @Test
    void whenNeededCopiesAgainForASlotNewerThanTheOffsets() {
        StartPlan p = plan(SnapshotMode.WHEN_NEEDED, SlotLostHandling.FAIL, STREAMING, idle(C1 + 10_000));
        assertEquals(Action.SNAPSHOT_EXISTING_SLOT, p.action());
        assertEquals(C1 + 10_000, p.streamFrom());
        assertEquals(Action.SNAPSHOT_NEW_SLOT, plan(SnapshotMode.WHEN_NEEDED, SlotLostHandling.FAIL, STREAMING, null).action());
        assertEquals(Action.STREAM, plan(SnapshotMode.WHEN_NEEDED, SlotLostHandling.FAIL, STREAMING, idle(C1 + 500)).action());
    }

    @Test
    void initialOnlyNeverTouchesAnExistingSlot() {
        assertEquals(Action.SNAPSHOT_BESIDE_SLOT, plan(SnapshotMode.INITIAL_ONLY, SlotLostHandling.FAIL, null, idle(C1)).action());
        assertEquals(Action.SNAPSHOT_TEMPORARY, plan(SnapshotMode.INITIAL_ONLY, SlotLostHandling.FAIL, INTERRUPTED, null).action());
        assertEquals(Action.IDLE, plan(SnapshotMode.INITIAL_ONLY, SlotLostHandling.FAIL, Position.snapshotDone(C1), null).action());
    }
}
