package io.pgrepl.client.tx;

/**
 * When a two-phase transaction reaches the application.
 *
 * <p>{@link #AT_COMMIT_PREPARED} keeps the prepared changes in the assembler (memory, then spill
 * files) until COMMIT PREPARED arrives, which can be much later. Those changes live only in this
 * process, so while one is kept every acknowledgement (of later transactions, messages, outcomes)
 * is capped at its prepare LSN: the slot is never confirmed past a kept PREPARE, and after a
 * reconnect the server decodes the PREPARE again. Once its COMMIT/ROLLBACK PREPARED arrives the
 * cap goes and the highest acknowledgement asked for meanwhile is confirmed. The price: a
 * transaction left prepared for long holds the slot (and the server's WAL) at its PREPARE, and
 * later transactions are sent again after a reconnect (skipped here only up to what the stream
 * confirmed). A server that confirmed past the PREPARE before this process started sends just the
 * COMMIT PREPARED, reported as a {@link TwoPhaseOutcome} whose {@code changesKept()} is false.
 * Applications that cannot hold the slot must use {@link #AT_PREPARE} and make the prepared
 * changes durable themselves.
 */
public enum PreparedDelivery {
    /** Deliver the changes at PREPARE (kind PREPARED); COMMIT/ROLLBACK PREPARED come as {@link TwoPhaseOutcome}. */
    AT_PREPARE,
    /** Keep the changes until COMMIT PREPARED and deliver them then; discard them at ROLLBACK PREPARED. */
    AT_COMMIT_PREPARED
}
