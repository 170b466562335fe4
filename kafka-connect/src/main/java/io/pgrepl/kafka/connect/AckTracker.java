package io.pgrepl.kafka.connect;

/**
 * Which transactions are wholly in Kafka, and what the slot may be confirmed with. Each
 * transaction handed to Connect gets an entry with the number of its records not yet acknowledged
 * by the producer ({@code commitRecord}); an entry is done once sealed (all its records were
 * produced) and its count is zero. The slot may be confirmed up to the last done entry of the
 * in-order prefix, never past a transaction with a record still in flight, and only once the
 * offsets covering it were committed ({@link #offsetsCommitted}).
 *
 * <p>Connect commits a record's offset only once every record handed over before it was
 * acknowledged, so records outside transactions (snapshot reads, heartbeats) hold back the
 * transactions handed over after them: each is {@linkplain #untracked registered} with a ticket
 * (its offset's lsn_commit, 0 without one; never below a transaction already opened) and blocks
 * the first transaction opened with a higher end LSN until {@linkplain #untrackedAcknowledged
 * acknowledged}.
 *
 * <p>Entries sit in a ring in opening order, so their end LSNs ascend: the open transaction is the
 * tail ({@link #produced} and {@link #seal} are O(1)), done ones leave at the head, and a
 * producer's acknowledgement finds its entry by binary search. Producer callbacks and the task
 * thread both call in: synchronized.
 */
final class AckTracker {
    private long[] endLsns = new long[64];
    private int[] inFlight = new int[64];
    private boolean[] sealed = new boolean[64];
    private int head;
    private int size;
    private long lastOpened;
    /** Untracked records in flight whose transaction to block is not opened yet: tickets (ascending) and counts. */
    private long[] pendingTickets = new long[8];
    private int[] pendingCounts = new int[8];
    private int pendingSize;
    private long confirmable;
    /** What was wholly in Kafka at the previous offset commit: confirmed at the next one. */
    private long candidate;
    /** Entries looked at to find the one a call is about (a test counts the work). */
    long probes;

    /** Starts tracking a transaction; false (and nothing tracked) if it is not after the last one (a resend). */
    synchronized boolean open(long endLsn) {
        if (Long.compareUnsigned(endLsn, lastOpened) <= 0) return false;
        lastOpened = endLsn;
        if (size == endLsns.length) grow();
        int i = slot(size++);
        endLsns[i] = endLsn;
        int blocked = 0;
        int k = 0;
        while (k < pendingSize && Long.compareUnsigned(pendingTickets[k], endLsn) < 0) blocked += pendingCounts[k++];
        if (k > 0) {
            System.arraycopy(pendingTickets, k, pendingTickets, 0, pendingSize - k);
            System.arraycopy(pendingCounts, k, pendingCounts, 0, pendingSize - k);
            pendingSize -= k;
        }
        inFlight[i] = blocked;
        sealed[i] = false;
        return true;
    }

    /**
     * A record outside any transaction (a snapshot read, a heartbeat) was handed over; {@code ticket}
     * is its offset's lsn_commit (0 without one), at or above every transaction opened so far.
     */
    synchronized void untracked(long ticket) {
        if (pendingSize > 0 && pendingTickets[pendingSize - 1] == ticket) {
            pendingCounts[pendingSize - 1]++;
            return;
        }
        if (pendingSize == pendingTickets.length) {
            pendingTickets = java.util.Arrays.copyOf(pendingTickets, pendingSize * 2);
            pendingCounts = java.util.Arrays.copyOf(pendingCounts, pendingSize * 2);
        }
        pendingTickets[pendingSize] = ticket;
        pendingCounts[pendingSize++] = 1;
    }

    /** Kafka acknowledged an untracked record with {@code ticket} (see {@link #untracked}). */
    synchronized void untrackedAcknowledged(long ticket) {
        for (int k = 0; k < pendingSize; k++) {
            if (pendingTickets[k] == ticket) {
                if (--pendingCounts[k] == 0) {
                    System.arraycopy(pendingTickets, k + 1, pendingTickets, k, pendingSize - k - 1);
                    System.arraycopy(pendingCounts, k + 1, pendingCounts, k, pendingSize - k - 1);
                    pendingSize--;
                }
                return;
            }
        }
        int i = firstAfter(ticket);
        if (i >= 0) inFlight[i]--;
        drain();
    }

    /** The ticket of a record's source offset: its lsn_commit, 0 without one. */
    static long ticket(java.util.Map<String, ?> offset) {
        return offset != null && offset.get(Position.LSN_COMMIT) instanceof Number n ? n.longValue() : 0;
    }

    /** One more record of the open transaction {@code endLsn} is on its way to Kafka. */
    synchronized void produced(long endLsn) {
        produced(endLsn, 1);
    }

    /** {@code n} more records of the open transaction {@code endLsn} are on their way (one lock for a batch). */
    synchronized void produced(long endLsn, int n) {
        int i = tail(endLsn);
        if (i >= 0) inFlight[i] += n;
    }

    /** All records of {@code endLsn} were produced. */
    synchronized void seal(long endLsn) {
        int i = tail(endLsn);
        if (i >= 0) sealed[i] = true;
        drain();
    }

    /** Kafka acknowledged (or a transform dropped) a record of transaction {@code endLsn}. */
    synchronized void acknowledged(long endLsn) {
        int i = find(endLsn);
        if (i >= 0) inFlight[i]--;
        drain();
    }

    /** The highest end LSN whose transaction and every one before it are wholly in Kafka (0: none). */
    synchronized long confirmable() {
        return confirmable;
    }

    /**
     * Connect committed the offsets of every record acknowledged before the commit began: returns
     * what to confirm to the slot now (0: nothing), which is what was wholly in Kafka at the
     * previous commit (every offset covering it is committed by now; what was acknowledged during
     * this commit may not be), and remembers what is wholly in Kafka now for the next commit.
     */
    synchronized long offsetsCommitted() {
        long confirm = candidate;
        candidate = confirmable;
        return confirm;
    }

    /** Transactions handed over and not wholly acknowledged yet. */
    synchronized int pending() {
        return size;
    }

    private int slot(int k) {
        return (head + k) & (endLsns.length - 1);
    }

    /** The ring index of the open transaction if it is {@code endLsn}, else -1 (a resend that was not opened). */
    private int tail(long endLsn) {
        if (size == 0) return -1;
        probes++;
        int i = slot(size - 1);
        return endLsns[i] == endLsn ? i : -1;
    }

    /** Binary search over the ascending end LSNs (acknowledgements mostly hit the head: looked at first). */
    private int find(long endLsn) {
        if (size == 0) return -1;
        probes++;
        if (endLsns[head] == endLsn) return head;
        int lo = 1;
        int hi = size - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            int i = slot(mid);
            probes++;
            int c = Long.compareUnsigned(endLsns[i], endLsn);
            if (c == 0) return i;
            if (c < 0) lo = mid + 1;
            else hi = mid - 1;
        }
        return -1;
    }

    /** The ring index of the first entry with an end LSN above {@code ticket}, or -1. */
    private int firstAfter(long ticket) {
        int lo = 0;
        int hi = size - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            probes++;
            if (Long.compareUnsigned(endLsns[slot(mid)], ticket) > 0) {
                found = mid;
                hi = mid - 1;
            } else {
                lo = mid + 1;
            }
        }
        return found < 0 ? -1 : slot(found);
    }

    private void drain() {
        while (size > 0 && sealed[head] && inFlight[head] <= 0) {
            confirmable = endLsns[head];
            head = (head + 1) & (endLsns.length - 1);
            size--;
        }
    }

    private void grow() {
        int n = endLsns.length;
        long[] l = new long[n * 2];
        int[] f = new int[n * 2];
        boolean[] s = new boolean[n * 2];
        for (int k = 0; k < size; k++) {
            int i = slot(k);
            l[k] = endLsns[i];
            f[k] = inFlight[i];
            s[k] = sealed[i];
        }
        endLsns = l;
        inFlight = f;
        sealed = s;
        head = 0;
    }
}
