package io.pgrepl.client.stream;

import io.pgrepl.codec.Lsn;
import java.util.HashSet;
import java.util.Set;

/**
 * The positions a logical stream reports in StandbyStatusUpdate, kept apart from any I/O so the
 * rules can be tested alone. Single-threaded (the event loop).
 *
 * <ul>
 *   <li>write = highest position received (never below flush);</li>
 *   <li>flush = apply = highest position the application acknowledged, or a keepalive's WAL end
 *       seen while nothing was outstanding (idle confirmation, switchable);</li>
 *   <li>outstanding = inside a transaction (Begin/Begin Prepare not yet ended, a streamed xact
 *       not yet committed/aborted), or something delivered whose end position is above the
 *       acknowledged one;</li>
 *   <li>flush never goes down, and after {@link #freeze()} (stop decided) never goes up.</li>
 * </ul>
 */
final class FeedbackTracker {
    private final boolean confirmIdle;
    private long received;
    private long serverWalEnd;
    private long acknowledged;
    private long delivered;
    private long idleConfirmable;
    private boolean inTransaction;
    /**
     * Top-level xids of streamed transactions open on this connection. A set, not a counter: a
     * Stream Commit/Abort for an xid never opened here (its first block seen on an old
     * connection) must not close another one. Stream Start/Stop are rare next to rows.
     */
    private final Set<Long> openStreams = new HashSet<>();
    private long sentFlush;
    private boolean frozen;

    FeedbackTracker(boolean confirmIdle, long resumeFrom) {
        this.confirmIdle = confirmIdle;
        this.acknowledged = resumeFrom;
        this.sentFlush = 0;
    }

    /** An XLogData arrived; a walStart of 0 (Relation, Type, Begin before Origin) is no position. */
    void received(long walStart) {
        if (walStart != 0) received = Lsn.max(received, walStart);
    }

    /** Begin or Begin Prepare. */
    void transactionStarted() {
        inTransaction = true;
    }

    /** Commit / Prepare delivered with its end position. */
    void transactionEnded(long endLsn) {
        inTransaction = false;
        delivered = Lsn.max(delivered, endLsn);
    }

    /**
     * Any Stream Start, first segment or not: after a reconnect the server resends from a
     * transaction's first block, but a later block of an xid unknown here still means it is open.
     */
    void streamOpened(long xid) {
        openStreams.add(xid);
    }

    /** Stream Commit / Stream Prepare (endLsn set) or whole-transaction Stream Abort (endLsn 0) of {@code xid}. */
    void streamClosed(long xid, long endLsn) {
        openStreams.remove(xid);
        if (endLsn != 0) delivered = Lsn.max(delivered, endLsn);
    }

    /** Something outside any transaction the application should acknowledge (Commit/Rollback Prepared, a non-transactional message). */
    void standaloneDelivered(long lsn) {
        delivered = Lsn.max(delivered, lsn);
    }

    void acknowledge(long lsn) {
        acknowledged = Lsn.max(acknowledged, lsn);
    }

    void keepalive(long walEnd) {
        serverWalEnd = Lsn.max(serverWalEnd, walEnd);
        if (confirmIdle && !outstanding()) idleConfirmable = Lsn.max(idleConfirmable, walEnd);
    }

    boolean outstanding() {
        return inTransaction || !openStreams.isEmpty() || Long.compareUnsigned(delivered, acknowledged) > 0;
    }

    /** Stop decided: nothing new is confirmed from now on. */
    void freeze() {
        frozen = true;
    }

    /** The flush (= apply) value for the next update; also records it as sent. */
    long nextFlush() {
        if (!frozen) {
            sentFlush = Lsn.max(sentFlush, Lsn.max(acknowledged, idleConfirmable));
        }
        return sentFlush;
    }

    /** The write value to go with {@code flush}. */
    long write(long flush) {
        return Lsn.max(received, flush);
    }

    long received() { return received; }
    long serverWalEnd() { return serverWalEnd; }
    long acknowledged() { return acknowledged; }
    long sentFlush() { return sentFlush; }
}
