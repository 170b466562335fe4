package io.pgrepl.codec.replication;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.PgTime;
import java.time.Instant;

/** Primary keepalive 'k': Int64 walEnd, Int64 sendTime, Byte1 replyRequested. Reusable flyweight. */
public final class PrimaryKeepalive {
    public static final byte TYPE = 'k';
    public static final int LENGTH = 18;

    private ByteBuf buf;
    private int start;

    public PrimaryKeepalive wrap(ByteBuf payload) {
        return wrap(payload, payload.readerIndex(), payload.readableBytes());
    }

    /** Extra bytes after the 18 known ones are tolerated (a future server may append fields). */
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

    /** The walsender's sent position. */
    public long walEnd() {
        return buf.getLong(start + 1);
    }

    public long sendTimeMicros() {
        return buf.getLong(start + 9);
    }

    public Instant sendTime() {
        return PgTime.toInstant(sendTimeMicros());
    }

    /** True when the server wants a StandbyStatusUpdate now, to avoid a timeout disconnect. */
    public boolean replyRequested() {
        return buf.getByte(start + 17) != 0;
    }
}
