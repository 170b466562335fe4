package io.pgrepl.kafka.connect;

import java.util.ArrayDeque;

/**
 * Which transactions are wholly in Kafka. Each transaction handed to Connect gets an entry with
 * the number of its records not yet acknowledged by the producer ({@code commitRecord}); an entry
 * is done once sealed (all its records were produced) and its count is zero. The slot may be
 * confirmed up to the last done entry of the in-order prefix, never past a transaction with a
 * record still in flight. Producer callbacks and the task thread both call in: synchronized.
 */
final class AckTracker {
    private static final class Entry {
        final long endLsn;
        int inFlight;
        boolean sealed;

        Entry(long endLsn) {
            this.endLsn = endLsn;
        }
    }

    private final ArrayDeque<Entry> entries = new ArrayDeque<>();
    private long lastOpened;
    private long confirmable;

    /** Starts tracking a transaction; false (and nothing tracked) if it is not after the last one (a resend). */
    synchronized boolean open(long endLsn) {
        if (Long.compareUnsigned(endLsn, lastOpened) <= 0) return false;
        lastOpened = endLsn;
        entries.addLast(new Entry(endLsn));
        return true;
    }

    /** One more record of the open transaction {@code endLsn} is on its way to Kafka. */
    synchronized void produced(long endLsn) {
        produced(endLsn, 1);
    }

    /** {@code n} more records of the open transaction {@code endLsn} are on their way (one lock for a batch). */
    synchronized void produced(long endLsn, int n) {
        Entry e = find(endLsn);
        if (e != null) e.inFlight += n;
    }

    /** All records of {@code endLsn} were produced. */
    synchronized void seal(long endLsn) {
        Entry e = find(endLsn);
        if (e != null) e.sealed = true;
        drain();
    }

    /** Kafka acknowledged (or a transform dropped) a record of transaction {@code endLsn}. */
    synchronized void acknowledged(long endLsn) {
        Entry e = find(endLsn);
        if (e != null) e.inFlight--;
        drain();
    }

    /** The highest end LSN whose transaction and every one before it are wholly in Kafka (0: none). */
    synchronized long confirmable() {
        return confirmable;
    }

    /** Transactions handed over and not wholly acknowledged yet. */
    synchronized int pending() {
        return entries.size();
    }

    private void drain() {
        while (!entries.isEmpty() && entries.peekFirst().sealed && entries.peekFirst().inFlight <= 0) {
            confirmable = entries.pollFirst().endLsn;
        }
    }

    private Entry find(long endLsn) {
        for (Entry e : entries) if (e.endLsn == endLsn) return e;
        return null;
    }
}
