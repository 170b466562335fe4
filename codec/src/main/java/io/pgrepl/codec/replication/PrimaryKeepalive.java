package io.pgrepl.codec.replication;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.PgTime;
import java.time.Instant;

/** Primary keepalive 'k': Int64 walEnd, Int64 sendTime, Byte1 replyRequested. Reusable flyweight. */
public final class PrimaryKeepalive {
    /** The CopyData sub-message type byte. */
    public static final byte TYPE = 'k';
    /** Bytes of the message as servers 10 to 18 send it. */
    public static final int LENGTH = 18;

    private ByteBuf buf;
    private int start;

    /**
     * Wraps the readable bytes of {@code payload} (reader index at the 'k').
     *
     * @param payload the CopyData payload
     * @return this view
     * @throws MalformedMessageException if it is not a whole keepalive
     */
    public PrimaryKeepalive wrap(ByteBuf payload) {
        return wrap(payload, payload.readerIndex(), payload.readableBytes());
    }

    /**
     * Wraps {@code length} bytes of {@code buf} from {@code index}. Extra bytes after the 18 known ones
     * are tolerated (a future server may append fields).
     *
     * @param buf    the buffer
     * @param index  the absolute index of the type byte
     * @param length the message length
     * @return this view
     * @throws MalformedMessageException if it is not a whole keepalive
     */
    public PrimaryKeepalive wrap(ByteBuf buf, int index, int length) {
        if (length < 1 || buf.getByte(index) != TYPE) {
            throw new MalformedMessageException("Primary keepalive ('k')", 0, "not a keepalive message");
        }
        if (length < LENGTH) {
            throw new MalformedMessageException("Primary keepalive ('k')", length, "needs " + LENGTH + " bytes, got " + length);
        }
        this.buf = buf;
        this.start = index;
        return this;
    }

    /**
     * The walsender's sent position.
     *
     * @return the LSN
     */
    public long walEnd() {
        return buf.getLong(start + 1);
    }

    /**
     * When the server sent the message, in PostgreSQL microseconds since 2000-01-01 UTC.
     *
     * @return the send time
     */
    public long sendTimeMicros() {
        return buf.getLong(start + 9);
    }

    /**
     * When the server sent the message.
     *
     * @return the send time as an Instant
     */
    public Instant sendTime() {
        return PgTime.toInstant(sendTimeMicros());
    }

    /**
     * Whether the server wants a StandbyStatusUpdate now, to avoid a timeout disconnect.
     *
     * @return true when a reply is requested
     */
    public boolean replyRequested() {
        return buf.getByte(start + 17) != 0;
    }
}
