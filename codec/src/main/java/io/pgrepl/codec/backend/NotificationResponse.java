package io.pgrepl.codec.backend;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.internal.Wire;

/**
 * NotificationResponse 'A': Int32 notifying backend pid, String channel, String payload.
 *
 * @param processId the pid of the backend that ran NOTIFY
 * @param channel   the channel name
 * @param payload   the NOTIFY payload, empty if none was given
 */
public record NotificationResponse(int processId, String channel, String payload) {
    /**
     * Decodes a NotificationResponse payload.
     *
     * @param buf the bytes after the type and length, readerIndex to writerIndex; not moved
     * @return the notification
     * @throws MalformedMessageException if a string is unterminated or followed by bytes
     */
    public static NotificationResponse decode(ByteBuf buf) {
        int base = buf.readerIndex();
        int end = buf.writerIndex();
        Wire.require(base, 4, end, "NotificationResponse", base, "pid");
        int c = Wire.cstringEnd(buf, base + 4, end, "NotificationResponse", base);
        int p = Wire.cstringEnd(buf, c + 1, end, "NotificationResponse", base);
        if (p + 1 != end) throw new MalformedMessageException("NotificationResponse", p + 1 - base, "trailing bytes");
        return new NotificationResponse(buf.getInt(base), Wire.utf8(buf, base + 4, c), Wire.utf8(buf, c + 1, p));
    }
}
