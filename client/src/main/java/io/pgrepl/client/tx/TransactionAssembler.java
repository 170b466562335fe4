package io.pgrepl.client.tx;

import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.record.Begin;
import io.pgrepl.codec.pgoutput.record.BeginPrepare;
import io.pgrepl.codec.pgoutput.record.Commit;
import io.pgrepl.codec.pgoutput.record.CommitPrepared;
import io.pgrepl.codec.pgoutput.record.Message;
import io.pgrepl.codec.pgoutput.record.Origin;
import io.pgrepl.codec.pgoutput.record.PgOutputRecord;
import io.pgrepl.codec.pgoutput.record.Prepare;
import io.pgrepl.codec.pgoutput.record.Relation;
import io.pgrepl.codec.pgoutput.record.RollbackPrepared;
import io.pgrepl.codec.pgoutput.record.StreamAbort;
import io.pgrepl.codec.pgoutput.record.StreamCommit;
import io.pgrepl.codec.pgoutput.record.StreamPrepare;
import io.pgrepl.codec.pgoutput.record.StreamStart;
import io.pgrepl.codec.pgoutput.record.StreamStop;

import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * Groups pgoutput records into transactions, delivered in commit order.
 *
 * <ul>
 *   <li>B…C: delivered at C.</li>
 *   <li>Streamed (S…E blocks, interleaved with anything): buffered per top-level xid, delivered at
 *       Stream Commit; Stream Abort discards the whole transaction (subxid = xid) or just the changes
 *       carrying that subtransaction's xid.</li>
 *   <li>Two-phase (b…P, or streamed …p; later K or r): per {@link PreparedDelivery}.</li>
 *   <li>Non-transactional logical messages: delivered at once.</li>
 * </ul>
 * Buffered changes share one memory budget; beyond it the largest buffer spills to a temp file.
 * Not thread-safe: feed it from one thread (events are delivered on that thread). Delivered
 * transactions may be read, acknowledged and closed from any thread; each owns its spill file from
 * delivery on, so closing the assembler never takes the changes of a delivered transaction away.
 */
public final class TransactionAssembler implements AutoCloseable {
    private final AssemblerOptions options;
    private final Consumer<? super TxEvent> sink;
    /** The application's acknowledgements, capped below every kept PREPARE. */
    private final PreparedAckGate acknowledger;
    private final Map<Integer, Relation> relations = new ConcurrentHashMap<>();

    private Open current;
    private final Map<Long, Open> streams = new LinkedHashMap<>();
    private Open inStream;
    private final Map<Long, Open> keptPrepared = new HashMap<>();
    private final Set<Long> deliveredPrepared = new HashSet<>();
    private long memoryBytes;
    private long peakMemoryBytes;
    private boolean closed;
    /** Transactions ending at or below this were processed before: see {@link #onNewConnection}. */
    private long skipThroughLsn;

    /**
     * An assembler delivering to {@code sink} on the calling thread.
     *
     * @param options      memory budget, spill directory, prepared delivery and de-duplication
     * @param acknowledger receives the LSN when a delivered event is acknowledged (the stream's
     *                     acknowledge(lsn)); may be null for offline use. Under
     *                     {@link PreparedDelivery#AT_COMMIT_PREPARED} it never receives an LSN past
     *                     the PREPARE of a prepared transaction still kept here.
     * @param sink         receives each assembled event in server order
     */
    public TransactionAssembler(AssemblerOptions options, LongConsumer acknowledger, Consumer<? super TxEvent> sink) {
        this.options = Objects.requireNonNull(options, "options");
        this.acknowledger = new PreparedAckGate(acknowledger);
        this.sink = Objects.requireNonNull(sink, "sink");
        this.skipThroughLsn = options.skipThroughLsn();
    }

    /**
     * A connection (re)started streaming. The server sends again, from its first message, every
     * transaction it has not seen confirmed, so what was being assembled from the previous
     * connection is dropped, and from now on transactions ending at or below {@code dedupFloor}
     * (the stream's {@code dedupFloor()}: what the application already acknowledged) are skipped.
     * That is the only de-duplication streamed transactions can get: their commit position is
     * unknown until Stream Commit. Prepared transactions kept for COMMIT PREPARED stay.
     *
     * @param dedupFloor the new stream's dedupFloor(), or 0
     */
    public void onNewConnection(long dedupFloor) {
        if (current != null) discard(current);
        current = null;
        for (Open o : streams.values()) discard(o);
        streams.clear();
        inStream = null;
        skipThroughLsn = Lsn.max(skipThroughLsn, dedupFloor);
    }

    private boolean isNew(long endLsn) {
        return Lsn.compare(endLsn, skipThroughLsn) > 0;
    }

    /** {@return the heap (estimated, bytes) used by buffered, undelivered changes} */
    public long memoryBytes() {
        return memoryBytes;
    }

    /** {@return the highest {@link #memoryBytes()} seen} */
    public long peakMemoryBytes() {
        return peakMemoryBytes;
    }

    /** {@return the transactions open on the server side as seen so far (plain, streamed and kept prepared)} */
    public int openTransactions() {
        return (current == null ? 0 : 1) + streams.size() + keptPrepared.size();
    }

    /** {@return true while some transaction has begun but not ended: the slot must not be confirmed past it} */
    public boolean inTransaction() {
        return current != null || !streams.isEmpty();
    }

    /**
     * The latest Relation seen for {@code oid}, or null.
     *
     * @param oid the relation OID
     * @return the Relation message
     */
    public Relation relation(int oid) {
        return relations.get(oid);
    }

    /**
     * Feeds the next record of the stream.
     *
     * @param r the record, a copy
     * @throws TransactionAssemblyException if it breaks the transaction structure or a spill file fails
     * @throws IllegalStateException after {@link #close()}
     */
    public void accept(PgOutputRecord r) {
        if (closed) throw new IllegalStateException("assembler closed");
        if (r instanceof Relation rel) relations.put(rel.oid(), rel);
        if (r instanceof Begin b) {
            begin(new Open(b.xid(), null, false, 0));
        } else if (r instanceof BeginPrepare b) {
            begin(new Open(b.xid(), b.gid(), false, b.prepareLsn()));
        } else if (r instanceof Commit c) {
            Open tx = endCurrent("Commit");
            if (tx.gid != null) throw new TransactionAssemblyException("Commit inside Begin Prepare (gid " + tx.gid + ")");
            deliver(tx, Transaction.Kind.COMMITTED, c.commitLsn(), c.endLsn(), c.commitTimeMicros());
        } else if (r instanceof Prepare p) {
            Open tx = endCurrent("Prepare");
            tx.gid = p.gid();
            prepared(tx, p.prepareLsn(), p.endLsn(), p.prepareTimeMicros());
        } else if (r instanceof StreamStart s) {
            if (inStream != null) throw new TransactionAssemblyException("Stream Start inside a stream block");
            if (current != null) throw new TransactionAssemblyException("Stream Start inside a transaction");
            inStream = streams.computeIfAbsent(s.xid(), x -> new Open(x, null, true, 0));
        } else if (r instanceof StreamStop) {
            if (inStream == null) throw new TransactionAssemblyException("Stream Stop outside a stream block");
            inStream = null;
        } else if (r instanceof StreamCommit c) {
            Open tx = endStream(c.xid(), "Stream Commit");
            deliver(tx, Transaction.Kind.COMMITTED, c.commitLsn(), c.endLsn(), c.commitTimeMicros());
        } else if (r instanceof StreamPrepare p) {
            Open tx = endStream(p.xid(), "Stream Prepare");
            tx.gid = p.gid();
            prepared(tx, p.prepareLsn(), p.endLsn(), p.prepareTimeMicros());
        } else if (r instanceof StreamAbort a) {
            streamAbort(a);
        } else if (r instanceof CommitPrepared k) {
            Open tx = keptPrepared.remove(k.xid());
            if (tx != null) {
                acknowledger.release(k.xid());
                deliver(tx, Transaction.Kind.COMMIT_PREPARED, k.commitLsn(), k.endLsn(), k.commitTimeMicros());
            } else {
                boolean seen = deliveredPrepared.remove(k.xid());
                emit(new TwoPhaseOutcome(true, k.xid(), k.gid(), k.endLsn(), k.commitTimeMicros(), seen, acknowledger),
                        k.endLsn());
            }
        } else if (r instanceof RollbackPrepared rb) {
            Open tx = keptPrepared.remove(rb.xid());
            if (tx != null) {
                acknowledger.release(rb.xid());
                discard(tx);
            }
            boolean seen = deliveredPrepared.remove(rb.xid());
            emit(new TwoPhaseOutcome(false, rb.xid(), rb.gid(), rb.rollbackEndLsn(), rb.rollbackTimeMicros(), seen,
                    acknowledger), rb.rollbackEndLsn());
        } else if (r instanceof Origin o) {
            Open tx = inStream != null ? inStream : current;
            if (tx != null) {
                tx.origin = o.name();
                append(tx, o);
            }
        } else if (r instanceof Message m && !m.transactional()) {
            sink.accept(new NonTransactionalMessage(m, acknowledger));
        } else {
            change(r);
        }
    }

    private void begin(Open tx) {
        if (current != null) throw new TransactionAssemblyException("Begin inside an open transaction (xid "
                + Long.toUnsignedString(current.xid) + ")");
        if (inStream != null) throw new TransactionAssemblyException("Begin inside a stream block");
        current = tx;
    }

    private Open endCurrent(String what) {
        if (current == null) throw new TransactionAssemblyException(what + " without Begin");
        Open tx = current;
        current = null;
        return tx;
    }

    private Open endStream(long xid, String what) {
        if (inStream != null) throw new TransactionAssemblyException(what + " inside a stream block");
        Open tx = streams.remove(xid);
        // A streamed transaction with no changes for us can end without any block we saw.
        return tx != null ? tx : new Open(xid, null, true, 0);
    }

    private void change(PgOutputRecord r) {
        Open tx = inStream != null ? inStream : current;
        if (tx == null) {
            // Relation/Type outside a transaction carry nothing to deliver (the cache has them).
            if (r instanceof Relation || r instanceof io.pgrepl.codec.pgoutput.record.Type) return;
            throw new TransactionAssemblyException(io.pgrepl.codec.pgoutput.PgOutputMessageType.name(r.type())
                    + " outside a transaction");
        }
        append(tx, r);
    }

    private void append(Open tx, PgOutputRecord r) {
        long added = tx.buffer.append(r);
        memoryBytes += added;
        if (memoryBytes > peakMemoryBytes) peakMemoryBytes = memoryBytes;
        while (memoryBytes > options.memoryBudgetBytes()) {
            Open largest = largestInMemory();
            if (largest == null) break;
            memoryBytes -= largest.buffer.spill(options.spillDirectory());
        }
    }

    private Open largestInMemory() {
        Open best = null;
        for (Open o : allOpen()) {
            if (!o.buffer.spilled() && o.buffer.memoryBytes() > 0
                    && (best == null || o.buffer.memoryBytes() > best.buffer.memoryBytes())) best = o;
        }
        return best;
    }

    private Iterable<Open> allOpen() {
        java.util.List<Open> l = new java.util.ArrayList<>(streams.values());
        l.addAll(keptPrepared.values());
        if (current != null) l.add(current);
        return l;
    }

    private void streamAbort(StreamAbort a) {
        if (inStream != null) throw new TransactionAssemblyException("Stream Abort inside a stream block");
        Open tx = streams.get(a.xid());
        if (tx == null) return;
        if (a.subXid() == a.xid()) {
            streams.remove(a.xid());
            discard(tx);
        } else {
            memoryBytes -= tx.buffer.abortSubTransaction(a.subXid());
        }
    }

    private void prepared(Open tx, long prepareLsn, long endLsn, long timeMicros) {
        if (options.preparedDelivery() == PreparedDelivery.AT_PREPARE) {
            if (isNew(endLsn)) deliveredPrepared.add(tx.xid);
            deliver(tx, Transaction.Kind.PREPARED, prepareLsn, endLsn, timeMicros);
        } else {
            if (!Lsn.isValid(tx.prepareLsn)) tx.prepareLsn = prepareLsn; // streamed: known only now
            Open resent = keptPrepared.put(tx.xid, tx);
            if (resent != null && resent != tx) discard(resent); // prepared again after a reconnect
            acknowledger.hold(tx.xid, tx.prepareLsn);
        }
    }

    private void discard(Open tx) {
        memoryBytes -= tx.buffer.memoryBytes();
        tx.buffer.delete();
    }

    private void deliver(Open tx, Transaction.Kind kind, long commitLsn, long endLsn, long timeMicros) {
        memoryBytes -= tx.buffer.memoryBytes();
        tx.buffer.seal();
        if (!Lsn.isValid(endLsn) || isNew(endLsn)) {
            // From here the Transaction owns the buffer (and its spill file): it may still wait in a
            // queue when this assembler closes, and must stay readable until it is consumed.
            sink.accept(new Transaction(kind, tx.xid, tx.gid, commitLsn, endLsn, timeMicros, tx.origin, tx.streamed,
                    tx.buffer, acknowledger, relations::get));
        } else {
            tx.buffer.delete();
        }
    }

    private void emit(TxEvent e, long endLsn) {
        if (isNew(endLsn)) sink.accept(e);
    }

    /**
     * Deletes the spill files of transactions not delivered yet. Delivered transactions own their
     * files and are not touched: they may still be queued for a subscriber (see {@link Transaction#close()}).
     */
    @Override
    public void close() {
        if (closed) return;
        closed = true;
        for (Open o : allOpen()) o.buffer.delete();
        streams.clear();
        keptPrepared.clear();
        current = null;
        inStream = null;
        memoryBytes = 0;
    }

    private static final class Open {
        final long xid;
        final boolean streamed;
        String gid;
        String origin;
        /** Begin Prepare's / Stream Prepare's prepare LSN; 0 for other transactions. */
        long prepareLsn;
        final TxBuffer buffer;

        Open(long xid, String gid, boolean streamed, long prepareLsn) {
            this.xid = xid;
            this.prepareLsn = prepareLsn;
            this.gid = gid;
            this.streamed = streamed;
            this.buffer = new TxBuffer(xid);
        }
    }
}
