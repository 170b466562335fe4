package io.pgrepl.codec.replication;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.PgTime;
import java.time.Instant;

/**
 * XLogData 'w' (a CopyData payload of START_REPLICATION): Int64 walStart, Int64 walEnd,
 * Int64 sendTime, then the data (one pgoutput message in logical replication).
 * Reusable flyweight: {@link #wrap} validates the header and reads nothing else; {@link #data()}
 * is a slice, never a copy.
 */
public final class XLogData {
    public static final byte TYPE = 'w';
    public static final int HEADER_LENGTH = 25;

    private ByteBuf buf;
    private int start;
    private int end;

    /** Wraps the readable bytes of {@code payload} (reader index at the 'w'). */
    public XLogData wrap(ByteBuf payload) {
        return wrap(payload, payload.readerIndex(), payload.readableBytes());
    }

    public XLogData wrap(ByteBuf buf, int index, int length) {
        if (length < 1 || buf.getByte(index) != TYPE) {
            throw new MalformedMessageException("XLogData ('w')", 0, "not an XLogData message");
        }
        if (length < HEADER_LENGTH) {
            throw new MalformedMessageException("XLogData ('w')", length, "header needs " + HEADER_LENGTH + " bytes, got " + length);
        }
        this.buf = buf;
        this.start = index;
        this.end = index + length;
        return this;
    }

    /** Start of the data in WAL; 0 (invalid) for messages that are not the last write of a change. */
    public long walStart() {
        return buf.getLong(start + 1);
    }

    /** The server's current end of WAL. */
    public long walEnd() {
        return buf.getLong(start + 9);
    }

    public long sendTimeMicros() {
        return buf.getLong(start + 17);
    }

    public Instant sendTime() {
        return PgTime.toInstant(sendTimeMicros());
    }

    public ByteBuf buffer() {
        return buf;
    }

    /** Absolute index of the data (the pgoutput type byte) in {@link #buffer()}. */
    public int dataIndex() {
        return start + HEADER_LENGTH;
    }

    public int dataLength() {
        return end - start - HEADER_LENGTH;
    }

    /** The data as a slice (shares memory, not retained). */
    public ByteBuf data() {
        return buf.slice(dataIndex(), dataLength());
    }
}
