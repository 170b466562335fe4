package io.pgrepl.client.tx;

import io.pgrepl.codec.pgoutput.record.Message;

/**
 * A non-transactional logical message, delivered as soon as it arrives (even if the emitting
 * transaction later aborts). It confirms nothing: the next transaction's acknowledgement (or an
 * idle keepalive) moves the slot past it.
 */
public record NonTransactionalMessage(Message message) implements TxEvent {
    @Override
    public long ackLsn() {
        return 0;
    }

    @Override
    public void acknowledge() {
        // nothing to confirm, see the class comment
    }
}
