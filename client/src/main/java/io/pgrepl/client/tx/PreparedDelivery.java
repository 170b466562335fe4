package io.pgrepl.client.tx;

/**
 * When a two-phase transaction reaches the application.
 *
 * <p>{@link #AT_COMMIT_PREPARED} keeps the prepared changes in the assembler (memory, then spill
 * files) until COMMIT PREPARED arrives, which can be much later. Those changes live only in this
 * process: after a reconnect, a server that has already confirmed past the PREPARE sends just the
 * COMMIT PREPARED, and the assembler then reports a {@link TwoPhaseOutcome} whose
 * {@code changesKept()} is false instead of a {@link Transaction}. Applications that cannot accept
 * that must use {@link #AT_PREPARE} and make the prepared changes durable themselves.
 */
public enum PreparedDelivery {
    /** Deliver the changes at PREPARE (kind PREPARED); COMMIT/ROLLBACK PREPARED come as {@link TwoPhaseOutcome}. */
    AT_PREPARE,
    /** Keep the changes until COMMIT PREPARED and deliver them then; discard them at ROLLBACK PREPARED. */
    AT_COMMIT_PREPARED
}
