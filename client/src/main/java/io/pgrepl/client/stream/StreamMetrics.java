package io.pgrepl.client.stream;

import io.pgrepl.codec.Lsn;

/**
 * A snapshot of a stream's counters.
 *
 * @param messages       XLogData messages received
 * @param bytes          bytes of XLogData data received (headers excluded)
 * @param transactions   commits received (Commit, Stream Commit, Commit Prepared)
 * @param receivedLsn    highest position received
 * @param serverWalEnd   the server's WAL end as last reported (XLogData or keepalive)
 * @param acknowledgedLsn highest position the application acknowledged
 * @param flushedLsn     the last flush position sent to the server
 * @param lagBytes       serverWalEnd − flushedLsn (0 when unknown)
 * @param millisSinceLastMessage time since anything arrived from the server
 * @param statusUpdatesSent StandbyStatusUpdates sent so far
 */
public record StreamMetrics(long messages, long bytes, long transactions, long receivedLsn, long serverWalEnd,
                            long acknowledgedLsn, long flushedLsn, long lagBytes, long millisSinceLastMessage,
                            long statusUpdatesSent) {
    /** LSNs as the server prints them ({@code X/X}). */
    @Override
    public String toString() {
        return "StreamMetrics[messages=" + messages + ", bytes=" + bytes + ", transactions=" + transactions
                + ", receivedLsn=" + Lsn.format(receivedLsn) + ", serverWalEnd=" + Lsn.format(serverWalEnd)
                + ", acknowledgedLsn=" + Lsn.format(acknowledgedLsn) + ", flushedLsn=" + Lsn.format(flushedLsn)
                + ", lagBytes=" + lagBytes + ", millisSinceLastMessage=" + millisSinceLastMessage
                + ", statusUpdatesSent=" + statusUpdatesSent + "]";
    }
}
