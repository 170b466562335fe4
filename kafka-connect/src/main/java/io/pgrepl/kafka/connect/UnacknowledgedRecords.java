package io.pgrepl.kafka.connect;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Records handed to Connect by poll() that Kafka has not acknowledged yet (commitRecord), with a
 * limit (max.unacknowledged.records). Why a limit: when Connect stops a task it commits its last
 * offsets only after waiting for every record handed over to be acknowledged, and the whole stop
 * must fit in task.shutdown.graceful.timeout.ms (5 s). Connect's producer blocks send() while its
 * buffer is full and never fails it (max.block.ms is unbounded for source tasks), so during a
 * fast copy a task can hand over a whole buffer.memory of records, more than Kafka acknowledges
 * in 5 s: the stop is then cancelled and the last offsets are lost. poll() waits instead while
 * the limit is reached.
 *
 * <p>Counted on the task thread ({@link #handedOver}), released on the producer's thread
 * ({@link #acknowledged}; Connect calls commitRecord for every record, also one a transformation
 * dropped or an error tolerance skipped). With exactly-once delivery Connect calls it only when the
 * Kafka transaction is committed, so the task never waits inside a transaction it defines itself.
 */
final class UnacknowledgedRecords {
    private final int limit;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition room = lock.newCondition();
    private long count;

    UnacknowledgedRecords(int limit) {
        this.limit = limit;
    }

    void handedOver(int n) {
        if (n == 0) return;
        lock.lock();
        try {
            count += n;
        } finally {
            lock.unlock();
        }
    }

    void acknowledged() {
        lock.lock();
        try {
            if (count > 0) count--;
            if (count < limit) room.signal();
        } finally {
            lock.unlock();
        }
    }

    /** Waits up to {@code millis} while the limit is reached; true if poll() may hand over more. */
    boolean awaitRoom(long millis) throws InterruptedException {
        lock.lock();
        try {
            long nanos = TimeUnit.MILLISECONDS.toNanos(millis);
            while (count >= limit) {
                if (nanos <= 0) return false;
                nanos = room.awaitNanos(nanos);
            }
            return true;
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
