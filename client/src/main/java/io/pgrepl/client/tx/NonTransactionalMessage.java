package io.pgrepl.client.tx;

import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.record.Message;

import java.util.function.LongConsumer;

/**
 * A non-transactional logical message, delivered as soon as it arrives (even if the emitting
 * transaction later aborts). The stream counts its LSN as delivered and outstanding until it is
 * acknowledged, so it must be acknowledged like a transaction: otherwise idle keepalives cannot
 * confirm past it (a heartbeat of {@code pg_logical_emit_message(false, ...)} on an idle database
 * would hold the slot forever).
 *
 * @param message      the Message record
 * @param acknowledger receives {@link Message#messageLsn()} on {@link #acknowledge()}; may be null
 *                     (offline use)
 */
public record NonTransactionalMessage(Message message, LongConsumer acknowledger) implements TxEvent {
    /**
     * An offline message: {@link #acknowledge()} confirms nothing.
     *
     * @param message the Message record
     */
    public NonTransactionalMessage(Message message) {
        this(message, null);
    }

    /** The message's LSN. */
    @Override
    public long ackLsn() {
        return message.messageLsn();
    }

    @Override
    public void acknowledge() {
        long lsn = message.messageLsn();
        if (lsn != 0 && acknowledger != null) acknowledger.accept(lsn);
    }

    /** LSNs as the server prints them ({@code X/X}); the content by size only. */
    @Override
    public String toString() {
        return "NonTransactionalMessage[prefix=" + message.prefix() + ", messageLsn=" + Lsn.format(message.messageLsn())
                + ", content=" + message.content().length + " bytes]";
    }
}
