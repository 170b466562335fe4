package io.pgrepl.kafka.connect;

import io.pgrepl.client.reactive.ReplicationPublisher;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.StreamMetrics;
import io.pgrepl.codec.Lsn;
import io.pgrepl.kafka.connect.offsets.AckTracker;
import io.pgrepl.kafka.connect.offsets.Position;
import io.pgrepl.kafka.connect.records.ChangeRecords;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTaskContext;
import org.apache.kafka.connect.source.TransactionContext;

/**
 * The task's side of delivery: hands the chunks built ahead to Connect, commits Kafka transactions
 * at PostgreSQL's boundaries, adds heartbeats, and tracks which positions the slot may be
 * confirmed with ({@link AckTracker}). Everything here runs on the task thread except
 * {@link #acknowledged} (producer callbacks) and {@link #streaming} (the builder's reconnects).
 */
public final class Handover {
    /** Chunks of records built ahead of poll(); with max.batch.size this bounds what waits in memory. */
    private static final int BUILT_AHEAD = 4;

    private final SourceTaskContext context;
    private final ChangeRecords records;
    private final int heartbeatIntervalMs;
    private final AckTracker acks = new AckTracker();
    private volatile ReplicationPublisher<?> publisher;
    /** The incremental state of what was handed over last (heartbeats carry it). */
    private String handedState;
    /** The last position handed to Connect (or stored in the offsets at start): resends up to it are skipped. */
    private Position written = Position.START;
    /** The end LSN of the last transaction handed over that had no records (heartbeats record it). */
    private long passed;

    /** The last record handed over of the transaction being handed over (for its exactly-once commit). */
    private SourceRecord lastOfCurrent;
    private long lastSentMillis = System.currentTimeMillis();
    private long lastHeartbeatMillis;

    /*
     * Streaming: the builder thread reads the stream and turns it into records ahead of poll(), so
     * building overlaps Connect's conversion and send() on the task thread. Everything that decides
     * delivery (acks, offsets' positions, transaction commits, max.batch.size) still happens on the
     * task thread, when a chunk is handed over.
     */
    private final BlockingQueue<Chunk> builtAhead = new ArrayBlockingQueue<>(BUILT_AHEAD);
    private Chunk pending;

    public Handover(SourceTaskContext context, ChangeRecords records, int heartbeatIntervalMs) {
        this.context = context;
        this.records = records;
        this.heartbeatIntervalMs = heartbeatIntervalMs;
    }

    /** Where the builder thread puts its chunks. */
    public BlockingQueue<Chunk> builtAhead() {
        return builtAhead;
    }

    public Position written() {
        return written;
    }

    /** Where delivery starts: the stored offsets' position, or {@link Position#START} before a copy. */
    public void written(Position p) {
        written = p;
    }

    /** The stream now being read (a reconnect opens a new one): its figures and its confirmations. */
    public void streaming(ReplicationPublisher<?> p) {
        publisher = p;
    }

    /** {@return whether a transaction handed over in parts is still open} */
    public boolean inTransaction() {
        return lastOfCurrent != null;
    }

    /**
     * Reads handed over (the initial snapshot's, or an incremental chunk's): outside any
     * transaction, each holds back the next transaction until Kafka has it
     * ({@link AckTracker#untracked}); with exactly-once they commit a Kafka transaction of their own.
     */
    public void readsHandedOver(List<SourceRecord> reads) {
        for (SourceRecord r : reads) acks.untracked(AckTracker.ticket(r.sourceOffset()));
        TransactionContext tx = context.transactionContext();
        if (tx != null && !reads.isEmpty()) tx.commitTransaction(reads.get(reads.size() - 1));
    }

    /** The initial snapshot is complete: streaming hands over from its consistent point {@code from}. */
    public void snapshotDone(long from) {
        written = new Position(from, -1).withCommit(from);
        lastSentMillis = System.currentTimeMillis();
    }

    /**
     * Hands the next chunk built ahead over into {@code out}, waiting until {@code deadline} only
     * while {@code out} is empty. {@return false once poll() should return what it has}
     */
    public boolean next(List<SourceRecord> out, int max, long deadline) throws InterruptedException {
        Chunk c = pending;
        pending = null;
        if (c == null) {
            long wait = out.isEmpty() ? Math.max(0, deadline - System.nanoTime()) : 0;
            c = builtAhead.poll(wait, TimeUnit.NANOSECONDS);
            if (c == null) return false;
        }
        if (c.failure() != null || (!out.isEmpty() && out.size() + c.records().size() > max)) {
            if (out.isEmpty()) throw c.failure();
            pending = c;
            return false;
        }
        handOver(c, out);
        return out.size() < max;
    }

    /** What poll() returns for what {@link #next} handed over: a heartbeat added when one is due. */
    public List<SourceRecord> withHeartbeat(List<SourceRecord> out) {
        int hb = heartbeatIntervalMs;
        long now = System.currentTimeMillis();
        if (!out.isEmpty()) {
            lastSentMillis = now;
            // Record-less transactions (an incremental snapshot's watermarks, unpublished or filtered
            // tables) are confirmed only once an offset covers them: while reads flow without a pause,
            // a heartbeat still comes every interval, or the slot would hold their WAL until a change.
            if (hb > 0 && now - lastHeartbeatMillis >= hb && acks.untrackedPast(passed)) {
                List<SourceRecord> h = heartbeat();
                if (h != null) out.addAll(h);
            }
            return out;
        }
        if (hb > 0 && now - lastSentMillis >= hb) return heartbeat();
        return null;
    }

    /**
     * A heartbeat: its offset records how far the stream has got, transactions without records
     * included ({@link #passed}), and only then may the slot be confirmed that far (see
     * {@link StartPlan}). With transaction.boundary=connector it commits its own Kafka transaction:
     * left open, it would wait for the next PostgreSQL commit and fail after transaction.timeout.ms
     * on an idle database. Never inside a transaction handed over in parts (it would split it).
     */
    private List<SourceRecord> heartbeat() {
        TransactionContext tx = context.transactionContext();
        if (tx != null && lastOfCurrent != null) return null;
        lastSentMillis = System.currentTimeMillis();
        lastHeartbeatMillis = lastSentMillis;
        long reached = Lsn.max(passed, idlePosition());
        boolean advanced = Long.compareUnsigned(reached, written.endLsn()) > 0;
        // Every transaction ending at or below `reached` was handed over: Debezium may resume after it.
        if (advanced) written = written.max(new Position(reached, -1).withCommit(reached));
        SourceRecord r = records.heartbeat(written == Position.START ? null : written, handedState);
        // Connect commits offsets in order, so the heartbeat holds back whatever is opened after it;
        // registered first, it is what the position it carries waits for: that position is
        // confirmable only once the heartbeat (its only record) and everything before it are in Kafka.
        acks.untracked(AckTracker.ticket(r.sourceOffset()));
        // Tracked from the first heartbeat whose position no transaction's entry covers (record-less
        // transactions move `written` but open no entry): confirmable once it and all before it are in Kafka.
        if (acks.open(reached)) acks.seal(reached);
        if (tx != null) tx.commitTransaction(r);
        return List.of(r);
    }

    /**
     * How far an idle stream has got (0: not known to be idle). The stream's last status-update
     * snapshot holds the server's WAL end W (a keepalive's sent position, or a sent change's; every
     * transaction ending at or below it was sent before that message) and the highest position R
     * received (a Commit message carries its transaction's end LSN, so a transaction received whole
     * but not handed over ends at or below R, above every one handed over). Once a transaction
     * ending at or after R was handed over, everything received by then was handed over, so every transaction ending before W is in Kafka or on its way, and an offset
     * at W (index -1) covers exactly what was handed over. Called only when nothing waits ahead of poll().
     */
    private long idlePosition() {
        if (pending != null || !builtAhead.isEmpty() || lastOfCurrent != null) return 0;
        ReplicationPublisher<?> p = publisher;
        LogicalReplicationStream s = p == null ? null : p.stream();
        StreamMetrics m = s == null ? null : s.metrics();
        if (m == null) return 0;
        long handed = Lsn.max(written.endLsn(), passed);
        if (Long.compareUnsigned(handed, m.receivedLsn()) < 0) return 0;
        return m.serverWalEnd();
    }

    private void handOver(Chunk c, List<SourceRecord> out) {
        handedState = c.state();
        if (c.reads()) {
            handOverReads(c, out);
            return;
        }
        if (c.open() && c.seal() && c.records().isEmpty()) {
            // Nothing of it goes to Kafka, so no offset would record it: the slot is not confirmed past
            // it until a later record's or a heartbeat's offset covers it.
            if (Long.compareUnsigned(c.lsn(), passed) > 0) passed = c.lsn();
            if (c.through() != null) written = written.max(c.through());
            return;
        }
        if (c.open()) {
            acks.open(c.lsn());
            lastOfCurrent = null;
        }
        List<SourceRecord> rs = c.records();
        if (!rs.isEmpty()) {
            out.addAll(rs);
            acks.produced(c.lsn(), rs.size());
            lastOfCurrent = rs.get(rs.size() - 1);
        }
        if (c.through() != null) written = written.max(c.through());
        if (!c.seal()) return;
        acks.seal(c.lsn());
        TransactionContext tx = context.transactionContext();
        if (c.commit() && tx != null && lastOfCurrent != null) tx.commitTransaction(lastOfCurrent);
        lastOfCurrent = null;
    }

    /**
     * A chunk's reads (and notifications): outside any transaction, so each holds back the next
     * transaction until Kafka has it ({@link AckTracker#untracked}); the slot is confirmed as before.
     */
    private void handOverReads(Chunk c, List<SourceRecord> out) {
        // Reads come at their chunk's high watermark, after every transaction ending at or below it:
        // a heartbeat may record that far once they are handed over (the watermarks carry no record).
        if (Long.compareUnsigned(c.lsn(), passed) > 0) passed = c.lsn();
        out.addAll(c.records());
        readsHandedOver(c.records());
    }

    /** Kafka acknowledged {@code record} (Connect's commitRecord). */
    public void acknowledged(SourceRecord record) {
        Map<String, ?> offset = record.sourceOffset();
        if (record.valueSchema() == ChangeRecords.HEARTBEAT_VALUE || Position.isRead(offset)) {
            acks.untrackedAcknowledged(AckTracker.ticket(offset)); // they hold back later transactions' offsets
            return;
        }
        long lsn = Position.txEnd(offset);
        if (lsn != 0) acks.acknowledged(lsn);
    }

    /** Offsets were committed: confirm what they cover ({@link AckTracker#offsetsCommitted}). */
    public void offsetsCommitted() {
        long confirm = acks.offsetsCommitted();
        ReplicationPublisher<?> p = publisher;
        LogicalReplicationStream s = p == null ? null : p.stream();
        if (confirm != 0 && s != null) s.acknowledge(confirm);
    }
}
