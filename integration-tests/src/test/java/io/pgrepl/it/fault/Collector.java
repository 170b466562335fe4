package io.pgrepl.it.fault;

import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.LogicalStreamHandler;
import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.BeginMessage;
import io.pgrepl.codec.pgoutput.CommitMessage;
import io.pgrepl.codec.pgoutput.DeleteMessage;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.codec.pgoutput.TupleView;
import io.pgrepl.codec.pgoutput.UpdateMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The application side of the fault tests: keeps every delivered transaction (copied out of the
 * views), acknowledges with a lag (so that a fault finds unacknowledged transactions), and
 * records what must hold about confirmation: what the application acknowledged is written to
 * {@link #acked} <em>before</em> the stream is told, so a flush position above it seen on the
 * wire or in the slot is a confirmation of something not yet acknowledged.
 */
final class Collector implements LogicalStreamHandler {
    /** One delivered transaction. */
    record Delivery(long xid, long endLsn, List<String> changes, int connection, long ackedAtLastLoss) {}

    final List<Delivery> deliveries = new CopyOnWriteArrayList<>();
    final Set<Long> deliveredXids = ConcurrentHashMap.newKeySet();
    final AtomicLong acked = new AtomicLong();
    final AtomicLong lastEnd = new AtomicLong();
    final AtomicInteger connections = new AtomicInteger();
    /** Connection ends seen by the application, each with what it had acknowledged then. */
    final List<long[]> losses = new CopyOnWriteArrayList<>();
    final List<String> violations = new CopyOnWriteArrayList<>();
    final AtomicInteger statusUpdatesWithFlush = new AtomicInteger();
    volatile long ackedAtLastLoss;
    private volatile int connection;
    private long xid;
    private List<String> changes;

    @Override
    public void onStarted(LogicalReplicationStream s) {
        connection = connections.incrementAndGet();
        changes = null;
        s.completion().whenComplete((v, e) -> {
            long a = acked.get();
            ackedAtLastLoss = a;
            losses.add(new long[] {System.nanoTime(), a});
        });
    }

    @Override
    public void onBegin(BeginMessage m) {
        xid = m.xid();
        changes = new ArrayList<>();
    }

    @Override
    public void onInsert(InsertMessage m) {
        row("I", m.newTuple());
    }

    @Override
    public void onUpdate(UpdateMessage m) {
        row("U", m.newTuple());
    }

    @Override
    public void onDelete(DeleteMessage m) {
        changes.add("D:" + m.oldTuple().text(0) + ":");
    }

    private void row(String op, TupleView t) {
        changes.add(op + ":" + t.text(0) + ":" + t.text(1));
    }

    @Override
    public void onCommit(CommitMessage m) {
        deliveries.add(new Delivery(xid, m.endLsn(), List.copyOf(changes), connection, ackedAtLastLoss));
        if (!changes.isEmpty()) deliveredXids.add(xid);
        lastEnd.accumulateAndGet(m.endLsn(), Lsn::max);
        unacked.addLast(new long[] {System.nanoTime(), m.endLsn()});
        changes = null;
    }

    /** Commits not acknowledged yet: {nanoTime delivered, end LSN}, oldest first. */
    private final java.util.concurrent.ConcurrentLinkedDeque<long[]> unacked = new java.util.concurrent.ConcurrentLinkedDeque<>();

    /**
     * The acknowledgement the application is about to make (called before telling the stream):
     * the end of the newest commit delivered at least {@code lagMillis} ago, so that a fault
     * always finds some delivered transactions unacknowledged.
     */
    long nextAck(long lagMillis) {
        long cutoff = System.nanoTime() - lagMillis * 1_000_000;
        long e = acked.get();
        for (long[] head = unacked.peekFirst(); head != null && head[0] - cutoff <= 0; head = unacked.peekFirst()) {
            unacked.pollFirst();
            e = Lsn.max(e, head[1]);
        }
        acked.accumulateAndGet(e, Lsn::max);
        return e;
    }

    /** A flush position the server was sent or holds: it must not exceed what was acknowledged (or the slot's start). */
    void checkConfirmed(String where, long flush, long floor) {
        if (flush == 0) return;
        statusUpdatesWithFlush.incrementAndGet();
        long allowed = Lsn.max(acked.get(), floor);
        if (Long.compareUnsigned(flush, allowed) > 0) {
            violations.add(where + " confirmed " + Lsn.format(flush) + " but only " + Lsn.format(allowed) + " was acknowledged");
        }
    }

    /**
     * The deliveries of each xid, in order, leaving out transactions without changes: 10-14 send
     * Begin/Commit for every decoded transaction (autovacuum's ANALYZE has an xid too), and a
     * change history has nothing to say about them. A transaction of the history delivered
     * empty still shows: as missing.
     */
    Map<Long, List<Delivery>> byXid() {
        Map<Long, List<Delivery>> m = new java.util.LinkedHashMap<>();
        for (Delivery d : deliveries) {
            if (!d.changes().isEmpty()) m.computeIfAbsent(d.xid(), k -> new ArrayList<>()).add(d);
        }
        return m;
    }
}
