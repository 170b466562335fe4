package io.pgrepl.kafka.connect.offsets;

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
 * and blocks the next transaction opened until {@linkplain #untrackedAcknowledged acknowledged}.
 *
 * <p>Entries sit in a ring in opening order, so their end LSNs ascend: the open transaction is the
 * tail ({@link #produced} and {@link #seal} are O(1)), done ones leave at the head, and a
 * producer's acknowledgement finds its entry by binary search. Producer callbacks and the task
 * thread both call in: synchronized.
 */
public final class AckTracker {
    private long[] endLsns = new long[64];
    private int[] inFlight = new int[64];
    private boolean[] sealed = new boolean[64];
    private int head;
    private int size;
    private long lastOpened;
    private long confirmable;
    /**
     * Untracked records in flight, in the order handed over, in runs: {ticket, the end LSN below the
     * transaction they block (the first one opened above it), count}. A snapshot's reads are one run.
     */
    private final java.util.ArrayDeque<long[]> untracked = new java.util.ArrayDeque<>();
    /** Untracked records in flight that no transaction opened after yet (the next one to open inherits them). */
    private int blockNext;
    /** What was wholly in Kafka at the previous offset commit: confirmed at the next one. */
    private long candidate;
    /** Entries looked at to find the one a call is about (a test counts the work). */
    public long probes;

    /** {@return whether {@code lsn} is past every transaction tracked so far: nothing would confirm it yet} */
    public synchronized boolean untrackedPast(long lsn) {
        return Long.compareUnsigned(lsn, lastOpened) > 0;
    }

    /** Starts tracking a transaction; false (and nothing tracked) if it is not after the last one (a resend). */
    public synchronized boolean open(long endLsn) {
        if (Long.compareUnsigned(endLsn, lastOpened) <= 0) return false;
        lastOpened = endLsn;
        if (size == endLsns.length) grow();
        int i = slot(size++);
        endLsns[i] = endLsn;
        inFlight[i] = blockNext;
        blockNext = 0;
        sealed[i] = false;
        return true;
    }

    /**
     * A record outside any transaction (a snapshot read, a heartbeat) was handed over; {@code ticket}
     * names it for {@link #untrackedAcknowledged} (its offset's lsn_commit, 0 without one). It holds
     * back the open transaction if one is not sealed yet, else the next one opened, and so every
     * later one.
     */
    public synchronized void untracked(long ticket) {
        if (size > 0 && !sealed[slot(size - 1)]) {
            // Between two chunks of the open transaction: its later records come after it.
            int tail = slot(size - 1);
            inFlight[tail]++;
            addUntracked(ticket, endLsns[tail] - 1);
            return;
        }
        addUntracked(ticket, lastOpened);
        blockNext++;
    }

    private void addUntracked(long ticket, long below) {
        long[] last = untracked.peekLast();
        if (last != null && last[0] == ticket && last[1] == below) last[2]++;
        else untracked.addLast(new long[] {ticket, below, 1});
    }

    /**
     * Kafka acknowledged an untracked record with {@code ticket}. Records of one ticket may sit in
     * different partitions (an incremental snapshot's reads and a heartbeat), acknowledged in any
     * order, so the ticket does not say which one it was: it is counted against the newest in flight
     * with it. That errs on the safe side: transactions are released in order, so an older
     * transaction one of them holds back is released only once as many of them were acknowledged
     * as hold it or anything before it back.
     */
    public synchronized void untrackedAcknowledged(long ticket) {
        long[] u = null;
        for (java.util.Iterator<long[]> it = untracked.descendingIterator(); it.hasNext(); ) {
            long[] c = it.next();
            probes++;
            if (c[0] == ticket) {
                u = c;
                if (--c[2] == 0) it.remove();
                break;
            }
        }
        if (u == null) return;
        if (u[1] == lastOpened) {
            blockNext--; // no transaction opened after it yet
            return;
        }
        int i = firstAfter(u[1]);
        if (i >= 0) inFlight[i]--;
        drain();
    }

    /** The ticket of a record's source offset: its transaction's end LSN, 0 without one. */
    public static long ticket(java.util.Map<String, ?> offset) {
        return Position.txEnd(offset);
    }

    /** One more record of the open transaction {@code endLsn} is on its way to Kafka. */
    public synchronized void produced(long endLsn) {
        produced(endLsn, 1);
    }

    /** {@code n} more records of the open transaction {@code endLsn} are on their way (one lock for a batch). */
    public synchronized void produced(long endLsn, int n) {
        int i = tail(endLsn);
        if (i >= 0) inFlight[i] += n;
    }

    /** All records of {@code endLsn} were produced. */
    public synchronized void seal(long endLsn) {
        int i = tail(endLsn);
        if (i >= 0) sealed[i] = true;
        drain();
    }

    /** Kafka acknowledged (or a transform dropped) a record of transaction {@code endLsn}. */
    public synchronized void acknowledged(long endLsn) {
        int i = find(endLsn);
        if (i >= 0) inFlight[i]--;
        drain();
    }

    /** The highest end LSN whose transaction and every one before it are wholly in Kafka (0: none). */
    public synchronized long confirmable() {
        return confirmable;
    }

    /**
     * Connect committed the offsets of every record acknowledged before the commit began: returns
     * what to confirm to the slot now (0: nothing), which is what was wholly in Kafka at the
     * previous commit (every offset covering it is committed by now; what was acknowledged during
     * this commit may not be), and remembers what is wholly in Kafka now for the next commit.
     */
    public synchronized long offsetsCommitted() {
        long confirm = candidate;
        candidate = confirmable;
        return confirm;
    }

    /** Transactions handed over and not wholly acknowledged yet. */
    public synchronized int pending() {
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
