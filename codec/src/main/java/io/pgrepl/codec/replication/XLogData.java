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
    /** The CopyData sub-message type byte. */
    public static final byte TYPE = 'w';
    /** Bytes before the WAL data: type, walStart, walEnd, sendTime. */
    public static final int HEADER_LENGTH = 25;

    private ByteBuf buf;
    private int start;
    private int end;

    /**
     * Wraps the readable bytes of {@code payload} (reader index at the 'w').
     *
     * @param payload the CopyData payload
     * @return this view
     * @throws MalformedMessageException if it is not a whole XLogData header
     */
    public XLogData wrap(ByteBuf payload) {
        return wrap(payload, payload.readerIndex(), payload.readableBytes());
    }

    /**
     * Wraps {@code length} bytes of {@code buf} from {@code index} (at the 'w'); nothing is copied.
     *
     * @param buf    the buffer
     * @param index  the absolute index of the type byte
     * @param length the message length
     * @return this view
     * @throws MalformedMessageException if it is not a whole XLogData header
     */
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

    /**
     * The start of the data in WAL.
     *
     * @return the LSN; 0 (invalid) for messages that are not the last write of a change
     */
    public long walStart() {
        return buf.getLong(start + 1);
    }

    /**
     * The server's current end of WAL.
     *
     * @return the LSN
     */
    public long walEnd() {
        return buf.getLong(start + 9);
    }

    /**
     * When the server sent the message, in PostgreSQL microseconds since 2000-01-01 UTC.
     *
     * @return the send time
     */
    public long sendTimeMicros() {
        return buf.getLong(start + 17);
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
     * The buffer the view reads from.
     *
     * @return the receive buffer (valid during the callback only)
     */
    public ByteBuf buffer() {
        return buf;
    }

    /**
     * Where the data starts.
     *
     * @return the absolute index of the data (for logical replication the pgoutput type byte) in {@link #buffer()}
     */
    public int dataIndex() {
        return start + HEADER_LENGTH;
    }

    /**
     * How many data bytes follow the header.
     *
     * @return the data length
     */
    public int dataLength() {
        return end - start - HEADER_LENGTH;
    }

    /**
     * The data as a slice (shares memory, not retained).
     *
     * @return the WAL data
     */
    public ByteBuf data() {
        return buf.slice(dataIndex(), dataLength());
    }
}
