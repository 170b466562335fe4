package io.pgrepl.client.stream;

import io.pgrepl.codec.Lsn;

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
    private int openStreams;
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

    /** A Stream Start for an xid not open yet. */
    void streamOpened() {
        openStreams++;
    }

    /** Stream Commit (endLsn set) or Stream Abort (endLsn 0) of an open streamed xact. */
    void streamClosed(long endLsn) {
        if (openStreams > 0) openStreams--;
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
        return inTransaction || openStreams > 0 || Long.compareUnsigned(delivered, acknowledged) > 0;
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
