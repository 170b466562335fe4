package io.pgrepl.kafka.connect;

import io.pgrepl.kafka.connect.offsets.AckTracker;
import io.pgrepl.kafka.connect.offsets.Position;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The connector's delivery rules run against a simple model of PostgreSQL, the slot, Kafka and
 * Connect's offset commits ({@link DeliveryRulesModelTest}). What decides delivery is the real
 * code: {@link AckTracker} (which transactions are wholly in Kafka, the confirm rule), and
 * {@link Position} (record offsets, skip-on-resend); the task's flow around them (hand over, seal,
 * commitRecord, commit) is mirrored from {@code PgreplSourceTask}. The checks use only the model's
 * own bookkeeping: which records reached the topic and the raw keys of the stored offset.
 *
 * <p>An initial snapshot of {@link #READS} rows at the consistent point comes first; a restart
 * during it resumes after the last committed read.
 */
final class DeliveryModel {
    static final int READS = 4;
    static final long CONSISTENT_POINT = 50;
    private static final int CHUNK = 1;

    /** A record handed to Connect: {@code id} names what it carries (null: a heartbeat); equal by identity. */
    private static final class Submitted {
        private final String id;
        private final Map<String, Object> offset;

        Submitted(String id, Map<String, Object> offset, long lsn) {
            this.id = id;
            this.offset = offset;
        }

        String id() {
            return id;
        }

        Map<String, Object> offset() {
            return offset;
        }
    }

    // ---- the world
    /** Committed transactions: record counts; transaction i ends at LSN 100 * (i + 1). */
    final List<Integer> wal = new ArrayList<>();
    long slotConfirmed = CONSISTENT_POINT;
    /** Every record id that reached the topic, with how many times. */
    final Map<String, Integer> topic = new HashMap<>();
    /** Connect's stored offset (null: none). */
    Map<String, Object> stored;

    // ---- Connect
    private final List<Submitted> submitted = new ArrayList<>();
    private final Set<Submitted> acked = Collections.newSetFromMap(new IdentityHashMap<>());
    /** The offsets a commit in progress snapshotted (its flush has not completed). */
    private Map<String, Object> flushing;
    private boolean committing;

    // ---- the task
    private final boolean brokenConfirm;
    private AckTracker acks = new AckTracker();
    private boolean inSnapshot = true;
    private int nextRead;
    private Position written = Position.START;
    private Position built = Position.START;
    private int cursor;
    private int partial;
    final List<String> log = new ArrayList<>();

    DeliveryModel(boolean brokenConfirm) {
        this.brokenConfirm = brokenConfirm;
    }

    static long endLsn(int tx) {
        return 100L * (tx + 1);
    }

    static String id(long lsn, int record) {
        return lsn + ":" + record;
    }

    boolean inSnapshot() {
        return inSnapshot;
    }

    // ---- actions

    void dbCommit(int records) {
        wal.add(records);
        log.add("db commit of " + records + " at " + endLsn(wal.size() - 1));
    }

    /** poll(): the next snapshot read, or the next chunk of the stream. */
    void produce() {
        if (inSnapshot) {
            int i = nextRead++;
            boolean last = i == READS - 1;
            submit(new Submitted("r:" + i, last ? Position.snapshotDone(CONSISTENT_POINT)
                    : Position.snapshotRead(CONSISTENT_POINT, i), last ? CONSISTENT_POINT : 0));
            if (last) {
                inSnapshot = false;
                written = new Position(CONSISTENT_POINT, -1);
                built = written;
                streamFrom(slotConfirmed);
            }
            return;
        }
        if (cursor >= wal.size()) return;
        long lsn = endLsn(cursor);
        int n = wal.get(cursor);
        if (partial == 0) acks.open(lsn);
        int end = Math.min(n, partial + CHUNK);
        int handed = 0;
        for (int j = partial; j < end; j++) {
            if (built.covers(lsn, j, Position.PART_MAIN, j)) continue; // the builder's resend check
            submit(new Submitted(id(lsn, j), Position.offset(lsn, j, Position.PART_MAIN), lsn));
            handed++;
        }
        if (handed > 0) acks.produced(lsn, handed);
        Position through = Position.of(lsn, end - 1, Position.PART_MESSAGES - 1);
        built = built.max(through);
        written = written.max(through);
        partial = end;
        if (end == n) {
            acks.seal(lsn);
            cursor++;
            partial = 0;
        }
    }

    void heartbeat() {
        if (inSnapshot || written == Position.START) return;
        submit(new Submitted(null, written.toOffset(), 0));
    }

    /** The producer acknowledges the {@code k}-th record in flight (Kafka acknowledges across partitions in any order). */
    void ack(int k) {
        List<Submitted> inFlight = submitted.stream().filter(s -> !acked.contains(s)).toList();
        if (inFlight.isEmpty()) return;
        Submitted s = inFlight.get(k % inFlight.size());
        acked.add(s);
        if (s.id() == null || s.id().startsWith("r:")) {
            if (s.id() != null) reachTopic(s);
            acks.untrackedAcknowledged(AckTracker.ticket(s.offset())); // as commitRecord does
            return;
        }
        reachTopic(s);
        if (s.offset().get(Position.TX_END) instanceof Number lsn) acks.acknowledged(lsn.longValue());
    }

    /** Connect's offset commit, first half: the offsets of the acknowledged prefix are snapshotted and flushed. */
    void beginCommit() {
        if (committing) return;
        committing = true;
        flushing = null;
        int i = 0;
        while (i < submitted.size() && acked.contains(submitted.get(i))) flushing = submitted.get(i++).offset();
        submitted.subList(0, i).clear();
    }

    /** Second half: the flush completed, then the task's commit() (what it returns is confirmed to the slot). */
    void endCommit() {
        if (!committing) return;
        committing = false;
        if (flushing != null) stored = flushing;
        long confirm = brokenConfirm ? acks.confirmable() : acks.offsetsCommitted();
        if (!inSnapshot && confirm != 0) slotConfirmed = Math.max(slotConfirmed, confirm);
    }

    /**
     * The worker dies: a record in flight may or may not have reached Kafka (bit k of
     * {@code landed}); a flush in progress is lost. The task starts again from the stored offset.
     */
    void restart(long landed) {
        int k = 0;
        for (Submitted s : submitted) {
            if (!acked.contains(s) && s.id() != null && (landed >>> (k++ & 63) & 1) != 0) reachTopic(s);
        }
        submitted.clear();
        acked.clear();
        committing = false;
        flushing = null;
        acks = new AckTracker();
        if (stored == null || Position.snapshotInterrupted(stored)) {
            inSnapshot = true;
            nextRead = stored == null ? 0 : ((Number) stored.get(Position.EVENT)).intValue() + 1;
            written = Position.START;
            return;
        }
        inSnapshot = false;
        written = Position.fromOffset(stored);
        built = written;
        streamFrom(slotConfirmed);
    }

    /** The walsender went away: the task reconnects and the server resends from the slot. */
    void reconnect() {
        if (!inSnapshot) streamFrom(slotConfirmed);
    }

    private void streamFrom(long confirmed) {
        cursor = 0;
        while (cursor < wal.size() && endLsn(cursor) <= confirmed) cursor++;
        partial = 0;
    }

    private void submit(Submitted s) {
        submitted.add(s);
        if (s.id() == null || s.id().startsWith("r:")) acks.untracked(AckTracker.ticket(s.offset()));
    }

    private void reachTopic(Submitted s) {
        int times = topic.merge(s.id(), 1, Integer::sum);
        if (times > 1 && storedCovers(s.id())) {
            throw new AssertionError(s.id() + " written again though the stored offset " + stored + " covers it");
        }
    }

    // ---- the checks (the model's own reading of the stored offset's keys)

    /** True when the stored offset covers record {@code id} ("r:i" a snapshot read, "lsn:j" a change). */
    boolean storedCovers(String id) {
        if (stored == null) return false;
        boolean storedIsRead = !(stored.get(Position.TX_END) instanceof Number);
        if (id.startsWith("r:")) {
            if (!storedIsRead) return true; // the copy finished
            return Integer.parseInt(id.substring(2)) <= ((Number) stored.get(Position.EVENT)).intValue();
        }
        if (storedIsRead) return false;
        long lsn = Long.parseLong(id.substring(0, id.indexOf(':')));
        int j = Integer.parseInt(id.substring(id.indexOf(':') + 1));
        long sLsn = ((Number) stored.get(Position.TX_END)).longValue();
        int sEvent = ((Number) stored.get(Position.EVENT)).intValue();
        return lsn < sLsn || (lsn == sLsn && j <= sEvent);
    }

    /** After every step: the slot is never confirmed past committed offsets, and what they cover is in Kafka. */
    void checkInvariants() {
        for (int t = 0; t < wal.size() && endLsn(t) <= slotConfirmed; t++) {
            for (int j = 0; j < wal.get(t); j++) {
                String id = id(endLsn(t), j);
                if (!storedCovers(id)) {
                    throw new AssertionError("slot confirmed at " + slotConfirmed + " past the committed offset " + stored
                            + " (" + id + " is not covered)");
                }
            }
        }
        for (int i = 0; i < READS; i++) requireCoveredInTopic("r:" + i);
        for (int t = 0; t < wal.size(); t++) {
            for (int j = 0; j < wal.get(t); j++) requireCoveredInTopic(id(endLsn(t), j));
        }
    }

    private void requireCoveredInTopic(String id) {
        if (storedCovers(id) && !topic.containsKey(id)) {
            throw new AssertionError(id + " is covered by the committed offset " + stored + " but never reached Kafka");
        }
    }

    /** Runs to the end without faults: every read and every change must then be in the topic. */
    void drainAndCheckNothingLost() {
        for (int round = 0; round < 4 * (READS + 4 * wal.size()) + 4; round++) {
            produce();
            for (int k = 0; k < 4; k++) ack(0);
        }
        beginCommit();
        endCommit();
        beginCommit();
        endCommit();
        checkInvariants();
        for (int i = 0; i < READS; i++) {
            if (!topic.containsKey("r:" + i)) throw new AssertionError("read " + i + " lost");
        }
        for (int t = 0; t < wal.size(); t++) {
            for (int j = 0; j < wal.get(t); j++) {
                if (!topic.containsKey(id(endLsn(t), j))) throw new AssertionError(id(endLsn(t), j) + " lost");
            }
        }
        if (!wal.isEmpty() && slotConfirmed != endLsn(wal.size() - 1)) {
            throw new AssertionError("after a clean drain the slot should be confirmed at the last commit, is " + slotConfirmed);
        }
    }

    @Override
    public String toString() {
        return "slot=" + slotConfirmed + " stored=" + stored + " wal=" + wal;
    }
}
