package io.pgrepl.kafka.connect;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * Records handed to Connect by poll() that Kafka has not acknowledged yet (commitRecord), with two
 * limits: a count (max.unacknowledged.records) and a time (max.unacknowledged.ms), the time Kafka
 * would need to acknowledge them at the pace it acknowledged records over the last second.
 *
 * <p>Why: when Connect (4.x) stops a source task, its task thread leaves poll(), then waits for every
 * record already handed to the producer to be acknowledged (SubmittedRecords.awaitAllMessages, up to
 * offset.flush.timeout.ms), commits the offsets, and only then calls SourceTask.stop(); all of it must
 * fit in task.shutdown.graceful.timeout.ms (5 s), or the stop is cancelled and the last offsets are
 * lost. The connector is not told in time, so what it controls is how much waits for Kafka at any
 * moment. A count alone does not bound that wait: a broker quota that pays back an earlier burst
 * acknowledged 24 records a second while the copy ran (a thread dump of the stop showed the task
 * thread 5 s in awaitAllMessages with 119 records of 734 bytes outstanding, under a 600 kB/s quota).
 * The time limit follows the pace Kafka actually keeps.
 *
 * <p>Counted on the task thread ({@link #handedOver}), released on the producer's thread
 * ({@link #acknowledged}; Connect calls commitRecord for every record, also one a transformation
 * dropped or an error tolerance skipped). With exactly-once delivery Connect calls it only when the
 * Kafka transaction is committed, so the task never waits inside a transaction it defines itself.
 */
final class UnacknowledgedRecords {
    /** The pace is measured over the last second, in slots of 100 ms. */
    private static final int SLOTS = 10;
    private static final long SLOT_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long SECOND_NANOS = SLOTS * SLOT_NANOS;

    private final int limit;
    private final long maxNanos;
    private final LongSupplier clock;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition room = lock.newCondition();
    private long count;
    /** Acknowledgements per slot, and the slot number each entry counts (older entries are stale). */
    private final long[] acked = new long[SLOTS];
    private final long[] slotOf = new long[SLOTS];
    /** When records last started waiting (count went from 0 up); meaningful while count > 0. */
    private long waitingSince;
    /**
     * Acknowledgements in each of the last {@link #REMEMBERED} seconds in which records waited
     * throughout. A quota that pays back a burst stalls the producer for up to a second per request,
     * between seconds at full speed: the pace to plan a stop with is the slow one.
     */
    private static final int REMEMBERED = 5;
    private final long[] slowest = new long[REMEMBERED];
    private final long[] secondOf = new long[REMEMBERED];
    /** The second the last event fell in, and the acknowledgements within it so far. */
    private long second = Long.MIN_VALUE;
    private long acksInSecond;

    UnacknowledgedRecords(int limit, long maxMillis) {
        this(limit, maxMillis, System::nanoTime);
    }

    UnacknowledgedRecords(int limit, long maxMillis, LongSupplier clock) {
        this.limit = limit;
        this.maxNanos = TimeUnit.MILLISECONDS.toNanos(maxMillis);
        this.clock = clock;
        java.util.Arrays.fill(slotOf, Long.MIN_VALUE);
        java.util.Arrays.fill(secondOf, Long.MIN_VALUE);
    }

    void handedOver(int n) {
        if (n == 0) return;
        lock.lock();
        try {
            long now = clock.getAsLong();
            roll(now);
            if (count == 0) waitingSince = now;
            count += n;
        } finally {
            lock.unlock();
        }
    }

    void acknowledged() {
        lock.lock();
        try {
            long now = clock.getAsLong();
            roll(now);
            acksInSecond++;
            if (count > 0) count--;
            long slot = now / SLOT_NANOS;
            int i = (int) Math.floorMod(slot, (long) SLOTS);
            if (slotOf[i] != slot) {
                slotOf[i] = slot;
                acked[i] = 0;
            }
            acked[i]++;
            room.signal();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Closes the seconds before {@code now}'s: one in which records waited throughout is remembered
     * with its acknowledgements. Called before each change of count, so the count now is the count
     * at the end of every second closed here (nothing changed it since).
     */
    private void roll(long now) {
        long s = now / SECOND_NANOS;
        if (s == second) return;
        if (second != Long.MIN_VALUE) {
            remember(second, acksInSecond);
            for (long k = second + 1; k < s && k <= second + REMEMBERED; k++) remember(k, 0);
        }
        second = s;
        acksInSecond = 0;
    }

    private void remember(long s, long acks) {
        if (count == 0 || waitingSince > s * SECOND_NANOS) return; // not waiting all along: says nothing of Kafka
        int i = (int) Math.floorMod(s, (long) REMEMBERED);
        secondOf[i] = s;
        slowest[i] = acks;
    }

    /**
     * Records a second Kafka acknowledges, to plan with: the pace over the last second, or a slower
     * one of the last few seconds in which records waited throughout (a pace measured while little
     * waited says nothing of Kafka's).
     */
    private long pace(long now) {
        long slot = now / SLOT_NANOS;
        long pace = 0;
        for (int i = 0; i < SLOTS; i++) if (slotOf[i] > slot - SLOTS) pace += acked[i];
        long s = now / SECOND_NANOS;
        for (int i = 0; i < REMEMBERED; i++) if (secondOf[i] >= s - REMEMBERED) pace = Math.min(pace, slowest[i]);
        return pace;
    }

    /**
     * How many records poll() may hand over now (0: none): below both limits, and at least one while
     * nothing waits, so that the pace can be measured at all.
     */
    private long room(long now) {
        roll(now);
        // pace records a second: in maxNanos Kafka acknowledges pace * maxNanos / 1 s of them.
        long byTime = (long) (pace(now) * (maxNanos / 1e9));
        long allowed = Math.min(limit, byTime);
        long free = allowed - count;
        return count == 0 ? Math.max(1, free) : Math.max(0, free);
    }

    /** Waits up to {@code millis} for room; returns how many records poll() may hand over (0: none yet). */
    long awaitRoom(long millis) throws InterruptedException {
        lock.lock();
        try {
            long deadline = clock.getAsLong() + TimeUnit.MILLISECONDS.toNanos(millis);
            while (true) {
                long now = clock.getAsLong();
                long r = room(now);
                if (r > 0) return r;
                long left = deadline - now;
                if (left <= 0) return 0;
                // Nothing acknowledged in a whole slot leaves the room as it is: waking at each ack is enough.
                room.awaitNanos(left);
            }
        } finally {
            lock.unlock();
        }
    }

    long count() {
        lock.lock();
        try {
            return count;
        } finally {
            lock.unlock();
        }
    }
}
