package io.pgrepl.kafka.connect.offsets;

import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;

/**
 * Records handed to Connect by poll() that Kafka has not acknowledged yet (commitRecord), with two
 * limits: a count (max.unacknowledged.records) and a time (max.unacknowledged.ms), the time Kafka
 * would need to acknowledge them at its slowest recent pace.
 *
 * <p>Why: when Connect (4.x) stops a source task, its task thread leaves poll(), then waits for every
 * record already handed to the producer to be acknowledged (SubmittedRecords.awaitAllMessages, up to
 * offset.flush.timeout.ms), commits the offsets, and only then calls SourceTask.stop(); all of it must
 * fit in task.shutdown.graceful.timeout.ms (5 s), or the stop is cancelled and the last offsets are
 * lost. The connector is not told in time, so what it controls is how much waits for Kafka at any
 * moment.
 *
 * <p>What the pace has to foresee is a broker quota (GracefulStopTest, 600 kB/s): the broker lets a
 * client run at full speed until the rate over its window (quota.window.num seconds, 11 by default)
 * passes the quota, then throttles every request by up to a second until the burst has left the
 * window, so the producer, one request in flight, gets one batch a second through: 24 records of 730
 * bytes, after seconds of up to 2,900 a second. The pace of such seconds was never remembered (no
 * record waited throughout them), so the next fast spell let up to 2,900 records wait into the next
 * stall, and a stop right then outlasted 5 s (1 run in 9). So the pace is the slowest of the last
 * {@link #REMEMBERED} seconds (longer than a quota's window, so every stall of a throttled client
 * stays in view), and until {@link #TRUSTED} seconds have been seen, no more than a small start
 * allowance waits (a fresh client's first stall comes after its fastest seconds).
 *
 * <p>Counted on the task thread ({@link #handedOver}), released on the producer's thread
 * ({@link #acknowledged}; Connect calls commitRecord for every record, also one a transformation
 * dropped or an error tolerance skipped). With exactly-once delivery Connect calls it only when the
 * Kafka transaction is committed, so the task never waits inside a transaction it defines itself.
 */
public final class UnacknowledgedRecords {
    /** Records that may wait before {@link #TRUSTED} seconds tell Kafka's pace. */
    public static final int START = 32;
    /** The pace over the last second is measured in slots of 100 ms. */
    private static final int SLOTS = 10;
    private static final long SLOT_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long SECOND_NANOS = SLOTS * SLOT_NANOS;
    /** Seconds of Kafka's pace remembered: more than a default quota window (11 s). */
    private static final int REMEMBERED = 16;
    /** Seconds that must tell Kafka's pace before more than the start allowance may wait. */
    private static final int TRUSTED = 12;

    private final int limit;
    private final long maxNanos;
    private final int start;
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
     * Acknowledgements in each of the last {@link #REMEMBERED} seconds that tell Kafka's pace, and the
     * second each entry counts: a second in which the limits held poll() back, or at whose end
     * records waited and had waited throughout. (A second in which the source had little to send says
     * nothing of Kafka; one in which the limits held poll() back does even when every record in it was
     * acknowledged at once: under a throttle, the records allowed go out and come back together, and
     * with a small allowance and a fast Kafka, all of them may be back before poll() hands over more.)
     */
    private final long[] acksOf = new long[REMEMBERED];
    private final long[] secondOf = new long[REMEMBERED];
    /** The second the last event fell in, its acknowledgements so far, and whether it held poll() back. */
    private long second = Long.MIN_VALUE;
    private long acksInSecond;
    private boolean heldBack;

    public UnacknowledgedRecords(int limit, long maxMillis) {
        this(limit, maxMillis, START, System::nanoTime);
    }

    public UnacknowledgedRecords(int limit, long maxMillis, int start, LongSupplier clock) {
        this.limit = limit;
        this.maxNanos = TimeUnit.MILLISECONDS.toNanos(maxMillis);
        this.start = start;
        this.clock = clock;
        Arrays.fill(slotOf, Long.MIN_VALUE);
        Arrays.fill(secondOf, Long.MIN_VALUE);
    }

    public void handedOver(int n) {
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

    public void acknowledged() {
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
     * Closes the seconds before {@code now}'s. Called before each change of count, so the count now
     * is the count at the end of every second closed here (nothing changed it since).
     */
    private void roll(long now) {
        long s = now / SECOND_NANOS;
        if (s == second) return;
        if (second != Long.MIN_VALUE) {
            remember(second, acksInSecond, heldBack);
            for (long k = second + 1; k < s && k <= second + REMEMBERED; k++) remember(k, 0, false);
        }
        second = s;
        acksInSecond = 0;
        heldBack = false;
    }

    private void remember(long s, long acks, boolean held) {
        // Held back: there was more to hand over, even if every record was acknowledged by its end.
        if (!held && (count == 0 || waitingSince > s * SECOND_NANOS)) return;
        int i = (int) Math.floorMod(s, (long) REMEMBERED);
        secondOf[i] = s;
        acksOf[i] = acks;
    }

    /** Whether an entry's second is recent enough to count (an entry never written holds Long.MIN_VALUE). */
    private static boolean recent(long s, long now) {
        return s >= now / SECOND_NANOS - REMEMBERED;
    }

    /** How many of the last {@link #REMEMBERED} seconds tell Kafka's pace. */
    private int known(long now) {
        int n = 0;
        for (int i = 0; i < REMEMBERED; i++) if (recent(secondOf[i], now)) n++;
        return n;
    }

    /**
     * Records a second Kafka acknowledges, to plan with: the pace over the last second, or the slowest
     * of the seconds remembered.
     */
    private long pace(long now) {
        long slot = now / SLOT_NANOS;
        long pace = 0;
        for (int i = 0; i < SLOTS; i++) if (slotOf[i] > slot - SLOTS) pace += acked[i];
        for (int i = 0; i < REMEMBERED; i++) if (recent(secondOf[i], now)) pace = Math.min(pace, acksOf[i]);
        return pace;
    }

    /**
     * How many records poll() may hand over now (0: none): below the record limit, and below the
     * start allowance or, once the pace is known, the time limit at that pace if it allows more.
     *
     * <p>The start allowance is also the floor, because a pace measured under a throttle is partly
     * the task's own: with one request a second getting through, Kafka acknowledges about as many
     * records a second as were allowed to wait, and planning with that shrinks the allowance second
     * after second, down to one record a request.
     */
    private long room(long now) {
        roll(now);
        long allowed;
        if (known(now) < TRUSTED) {
            allowed = start;
        } else {
            // pace records a second: in maxNanos Kafka acknowledges pace * maxNanos / 1 s of them.
            allowed = Math.max(start, (long) (pace(now) * (maxNanos / 1e9)));
        }
        allowed = Math.min(limit, allowed);
        return Math.max(0, allowed - count);
    }

    /** Waits up to {@code millis} for room; returns how many records poll() may hand over (0: none yet). */
    public long awaitRoom(long millis) throws InterruptedException {
        lock.lock();
        try {
            long deadline = clock.getAsLong() + TimeUnit.MILLISECONDS.toNanos(millis);
            while (true) {
                long now = clock.getAsLong();
                long r = room(now);
                if (r > 0) return r;
                heldBack = true;
                long left = deadline - now;
                if (left <= 0) return 0;
                // Nothing acknowledged in a whole slot leaves the room as it is: waking at each ack is enough.
                room.awaitNanos(left);
            }
        } finally {
            lock.unlock();
        }
    }

    public long count() {
        lock.lock();
        try {
            return count;
        } finally {
            lock.unlock();
        }
    }
}
