package io.pgrepl.kafka.connect;

import io.pgrepl.codec.Lsn;
import io.pgrepl.kafka.connect.PgreplConnectorConfig.SlotLostHandling;
import io.pgrepl.kafka.connect.PgreplConnectorConfig.SnapshotMode;
import io.pgrepl.kafka.connect.offsets.DebeziumOffsets;
import io.pgrepl.kafka.connect.offsets.Position;
import java.util.Map;
import org.apache.kafka.connect.errors.ConnectException;

/**
 * What a starting task does, decided from the snapshot mode, slot.lost.handling, the stored
 * offsets and the slot as the catalog shows it; no I/O, so every rule is tested on its own.
 *
 * <p>The one rule behind all cases: a slot that may hold changes the topics need is never dropped.
 * When a copy has to be taken while the slot exists (an interrupted copy, a slot found without
 * offsets, a slot confirmed past the offsets), the tables are copied again under a fresh exported
 * snapshot and the slot then streams from {@code streamFrom}: the first copy's consistent point
 * after an interruption (kept in every read's offset, across any number of interruptions), else
 * the slot's confirmed_flush_lsn. Why the end state is exact: the second copy shows each row as
 * of its snapshot S2, taken after {@code streamFrom}; the stream then re-emits every change
 * committed after {@code streamFrom}, those before S2 included. So for each key the last event
 * in its topic is its newest state: a row changed after {@code streamFrom} ends with its last
 * change (a delete included, also for rows read only by the first, interrupted copy), and a row
 * not changed since then is as both copies read it. A key's state may step back for a moment
 * (a read of S2, then a re-emitted older change), never at the end.
 *
 * <p>A stored streaming offset {@code S} and the slot must agree: the slot's confirmed_flush_lsn
 * never passes what the offsets cover, because the task confirms only positions its committed
 * offsets record (records, or heartbeats that carry the position of transactions without
 * records) and turns off the stream's idle keepalive confirmation. A slot that is gone, or
 * confirmed past {@code S}, lost changes (or is another slot of the same name): the task fails
 * unless slot.lost.handling=snapshot, or snapshot.mode=when_needed, asks for a new copy.
 *
 * <p>Debezium's offsets (a takeover: the same connector name, so the same Connect offsets) are read
 * as the same rules need them ({@link DebeziumOffsets}): a streaming offset as the transaction its
 * {@code lsn_commit} names, checked against the slot like pgrepl's; an initial snapshot it did not
 * finish as a copy to take again beside the slot, streaming from the slot's confirmed position (the
 * same argument as above: Debezium confirms nothing during its copy); a blocking snapshot it did not
 * finish is refused (which tables it was reading is not in its offsets).
 */
public record StartPlan(Action action, long streamFrom, String why) {
    public enum Action {
        /** initial_only after its copy: nothing to do. */
        IDLE,
        /** Stream from the slot (created first if missing, snapshot.mode=never without offsets). */
        STREAM,
        /** Create the slot with an exported snapshot, copy, stream from its consistent point. */
        SNAPSHOT_NEW_SLOT,
        /** Keep the slot, copy under a fresh snapshot, stream from {@code streamFrom}. */
        SNAPSHOT_EXISTING_SLOT,
        /** initial_only: copy under a temporary slot's snapshot (no slot of that name exists). */
        SNAPSHOT_TEMPORARY,
        /** initial_only beside an existing slot of that name, which is not touched. */
        SNAPSHOT_BESIDE_SLOT
    }

    /** {@return whether every table is read again from its start (a copy, or an incremental initial load)} */
    boolean readsEveryTable() {
        return action == Action.SNAPSHOT_NEW_SLOT || action == Action.SNAPSHOT_EXISTING_SLOT || action == Action.SNAPSHOT_TEMPORARY
                || action == Action.SNAPSHOT_BESIDE_SLOT;
    }

    /** The slot as pg_replication_slots shows it; LSNs 0 where null. */
    public record Slot(boolean active, long confirmedFlush, long restartLsn) {}

    public static StartPlan decide(SnapshotMode mode, SlotLostHandling handling, Map<String, Object> stored, Slot slot,
                            String slotName) {
        String debeziumCopy = stored == null || Position.pgrepl(stored) ? null : DebeziumOffsets.unfinishedSnapshot(stored);
        if (debeziumCopy != null) return debeziumCopy(debeziumCopy, mode, slot, slotName);
        if (stored != null && !Position.pgrepl(stored) && !DebeziumOffsets.streaming(stored)) stored = null; // no position in it
        boolean interrupted = Position.snapshotInterrupted(stored);
        boolean snapshotDone = stored != null && !interrupted;
        if (mode == SnapshotMode.INITIAL_ONLY) {
            if (snapshotDone) return new StartPlan(Action.IDLE, 0, "initial_only and the snapshot is complete");
            return slot == null ? new StartPlan(Action.SNAPSHOT_TEMPORARY, 0, "initial_only")
                    : new StartPlan(Action.SNAPSHOT_BESIDE_SLOT, 0, "initial_only beside the existing slot");
        }
        if (snapshotDone && mode == SnapshotMode.ALWAYS) {
            // Every start copies again: a slot that lost changes does not matter, the copy covers them.
            String why = "snapshot.mode=always copies every table at each start";
            if (slot == null) return new StartPlan(Action.SNAPSHOT_NEW_SLOT, 0, why);
            requireIdle(slot, slotName);
            return new StartPlan(Action.SNAPSHOT_EXISTING_SLOT, slot.confirmedFlush(), why + ": the slot is kept, the tables"
                    + " are copied beside it and streaming continues from its position");
        }
        if (snapshotDone) {
            Position s = Position.fromOffset(stored);
            String lost = lost(slot, s.endLsn(), slotName);
            if (lost == null) return new StartPlan(Action.STREAM, 0, "offsets and slot agree");
            return snapshotAgain(mode, handling, slot, slot == null ? 0 : slot.confirmedFlush(), lost, slotName);
        }
        if (mode == SnapshotMode.NEVER || mode == SnapshotMode.NO_DATA) {
            return new StartPlan(Action.STREAM, 0, "snapshot.mode=" + mode.name().toLowerCase(java.util.Locale.ROOT));
        }
        if (!interrupted) {
            if (slot == null) return new StartPlan(Action.SNAPSHOT_NEW_SLOT, 0, "no offsets stored");
            requireIdle(slot, slotName);
            return new StartPlan(Action.SNAPSHOT_EXISTING_SLOT, slot.confirmedFlush(),
                    "no offsets stored and the slot exists: it is kept, copied beside and streamed from its position");
        }
        long first = Position.snapshotStreamFrom(stored);
        String lost = lost(slot, first, slotName);
        if (lost == null) {
            // Held, if at all, by the interrupted task's walsender: streaming waits for it (slotInUseWait).
            return new StartPlan(Action.SNAPSHOT_EXISTING_SLOT, first, "the previous copy was interrupted");
        }
        return snapshotAgain(mode, handling, slot, slot == null ? 0 : slot.confirmedFlush(), lost, slotName);
    }

    /** Debezium's offsets hold a snapshot of {@code type} it did not finish. */
    private static StartPlan debeziumCopy(String type, SnapshotMode mode, Slot slot, String slotName) {
        String what = "the stored offsets are Debezium's, written during a" + (type.equals("INITIAL") ? "n" : "") + " "
                + type.toLowerCase(java.util.Locale.ROOT) + " snapshot it did not finish";
        if (!type.equals("INITIAL")) {
            throw new ConnectException(what + ", and they do not say which tables it was reading. Let Debezium finish it,"
                    + " or reset the connector's offsets and start with snapshot.mode=initial (every table is copied again)");
        }
        if (mode == SnapshotMode.NEVER || mode == SnapshotMode.NO_DATA) {
            throw new ConnectException(what + ": its topics hold part of a copy, and snapshot.mode="
                    + mode.name().toLowerCase(java.util.Locale.ROOT) + " would never complete it. Set snapshot.mode=initial"
                    + " (or when_needed): the tables are copied again and streaming continues from the slot's position");
        }
        if (mode == SnapshotMode.INITIAL_ONLY) {
            return slot == null ? new StartPlan(Action.SNAPSHOT_TEMPORARY, 0, what)
                    : new StartPlan(Action.SNAPSHOT_BESIDE_SLOT, 0, what);
        }
        if (slot == null) return new StartPlan(Action.SNAPSHOT_NEW_SLOT, 0, what + ", and its slot is gone");
        requireIdle(slot, slotName);
        return new StartPlan(Action.SNAPSHOT_EXISTING_SLOT, slot.confirmedFlush(), what + ": the slot is kept, the tables are"
                + " copied again beside it and streaming continues from its position");
    }

    /** Why the slot cannot serve everything after {@code covered}; null if it can. */
    public static String lost(Slot slot, long covered, String slotName) {
        if (slot == null) {
            return "replication slot \"" + slotName + "\" does not exist, but the stored offsets need the changes after "
                    + Lsn.format(covered) + " from it";
        }
        if (slot.confirmedFlush() != 0 && Lsn.compare(slot.confirmedFlush(), covered) > 0) {
            return "replication slot \"" + slotName + "\" is confirmed up to " + Lsn.format(slot.confirmedFlush())
                    + ", past the stored offsets (" + Lsn.format(covered) + "): it was re-created, or another consumer"
                    + " advanced it, and the changes between may be missing";
        }
        return null;
    }

    private static StartPlan snapshotAgain(SnapshotMode mode, SlotLostHandling handling, Slot slot, long from, String lost,
                                           String slotName) {
        if (mode != SnapshotMode.WHEN_NEEDED && handling != SlotLostHandling.SNAPSHOT) {
            throw new ConnectException(lost + ". Set " + PgreplConnectorConfig.SLOT_LOST_HANDLING + "=snapshot to copy"
                    + " every table again (rows deleted while the slot was missing stay in the topics), or reset the"
                    + " connector's offsets");
        }
        if (slot == null) return new StartPlan(Action.SNAPSHOT_NEW_SLOT, 0, lost);
        requireIdle(slot, slotName);
        return new StartPlan(Action.SNAPSHOT_EXISTING_SLOT, from, lost);
    }

    private static void requireIdle(Slot slot, String slotName) {
        if (slot.active()) {
            throw new ConnectException("replication slot \"" + slotName + "\" is in use by another connection: a copy"
                    + " that then streams from it needs it to itself (stop the other consumer, or use another slot.name)");
        }
    }
}
