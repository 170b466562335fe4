package io.pgrepl.client.tx;

import java.util.function.LongConsumer;

/**
 * COMMIT PREPARED or ROLLBACK PREPARED of a transaction whose changes were delivered at PREPARE
 * ({@link PreparedDelivery#AT_PREPARE}), or whose changes this process no longer has
 * ({@code changesKept == false}, e.g. prepared before a reconnect) under
 * {@link PreparedDelivery#AT_COMMIT_PREPARED}.
 *
 * @param committed   true for COMMIT PREPARED, false for ROLLBACK PREPARED
 * @param xid         the prepared transaction's xid
 * @param gid         its global identifier
 * @param endLsn      end LSN of the COMMIT/ROLLBACK PREPARED record
 * @param timeMicros  commit or rollback time (PostgreSQL µs)
 * @param changesKept false when the changes were never delivered by this assembler
 */
public record TwoPhaseOutcome(boolean committed, long xid, String gid, long endLsn, long timeMicros,
                              boolean changesKept, LongConsumer acknowledger) implements TxEvent {
    @Override
    public long ackLsn() {
        return endLsn;
    }

    @Override
    public void acknowledge() {
        if (acknowledger != null) acknowledger.accept(endLsn);
    }

    @Override
    public String toString() {
        return (committed ? "CommitPrepared" : "RollbackPrepared") + "[xid=" + xid + ", gid=" + gid
                + ", endLsn=" + io.pgrepl.codec.Lsn.format(endLsn) + ", changesKept=" + changesKept + "]";
    }
}
