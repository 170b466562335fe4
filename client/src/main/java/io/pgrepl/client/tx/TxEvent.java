package io.pgrepl.client.tx;

/** What the transaction assembler delivers, in server order. */
public sealed interface TxEvent permits Transaction, NonTransactionalMessage, TwoPhaseOutcome {
    /**
     * The LSN this event lets the application confirm once it has processed it durably
     * (a transaction's end LSN), or 0 when the event confirms nothing by itself.
     *
     * @return the LSN, or 0
     */
    long ackLsn();

    /**
     * Confirms {@link #ackLsn()} to the server (the flush position of the slot). Never called
     * implicitly. A no-op for events that confirm nothing. Acknowledge in delivery order.
     */
    void acknowledge();
}
