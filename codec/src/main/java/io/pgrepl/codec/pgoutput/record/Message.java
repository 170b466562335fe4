package io.pgrepl.codec.pgoutput.record;

import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.PgOutputMessageType;
import java.util.Arrays;

/**
 * Message 'M' (pg_logical_emit_message); flags bit 1 = transactional. {@code content} is a private copy; don't modify it.
 *
 * @param xid        xid of the emitting transaction inside a stream block, else 0
 * @param flags      Int8 flags; bit 1 set when the message is transactional
 * @param messageLsn LSN of the message
 * @param prefix     the prefix given to pg_logical_emit_message
 * @param content    the message content, raw bytes
 */
public record Message(long xid, int flags, long messageLsn, String prefix, byte[] content) implements PgOutputRecord {
    @Override
    public byte type() {
        return PgOutputMessageType.MESSAGE;
    }

    /**
     * Whether the message was emitted transactionally (decoded at its transaction's commit).
     *
     * @return true if flags bit 1 is set
     */
    public boolean transactional() {
        return (flags & 1) != 0;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Message m && m.xid == xid && m.flags == flags && m.messageLsn == messageLsn
                && m.prefix.equals(prefix) && Arrays.equals(m.content, content);
    }

    @Override
    public int hashCode() {
        return (prefix.hashCode() * 31 + Long.hashCode(messageLsn)) * 31 + Arrays.hashCode(content);
    }

    @Override
    public String toString() {
        return "Message[xid=" + Long.toUnsignedString(xid) + ", flags=" + flags + ", messageLsn=" + Lsn.format(messageLsn) + ", prefix=" + prefix
                + ", content=" + content.length + " bytes]";
    }
}
