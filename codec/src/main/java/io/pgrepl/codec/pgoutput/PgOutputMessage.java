package io.pgrepl.codec.pgoutput;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.PgTime;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/**
 * Base of the flyweight views: a window {@code [offset, offset + length)} of a buffer holding one
 * pgoutput message, type byte first. The decoder validates every length before handing a view to
 * the handler, so accessors read in place and cannot fail. Views are owned and reused by one
 * {@link PgOutputDecoder}: valid only during the callback; copy what you keep (see
 * {@link io.pgrepl.codec.pgoutput.record.PgOutputRecords}).
 */
public abstract class PgOutputMessage {
    ByteBuf buf;
    int start;
    int end;

    PgOutputMessage() {}

    final void wrapMessage(ByteBuf buf, int start, int end) {
        this.buf = buf;
        this.start = start;
        this.end = end;
    }

    /**
     * The type byte.
     *
     * @return one of {@link PgOutputMessageType}
     */
    public abstract byte type();

    /**
     * The protocol name of this message.
     *
     * @return e.g. "Insert"
     */
    public final String typeName() {
        return PgOutputMessageType.name(type());
    }

    /**
     * The buffer the view reads from; indexes returned by accessors are absolute in it.
     *
     * @return the receive buffer (valid during the callback only)
     */
    public final ByteBuf buffer() {
        return buf;
    }

    /**
     * Where the message starts.
     *
     * @return the absolute index of the type byte
     */
    public final int offset() {
        return start;
    }

    /**
     * The message's size.
     *
     * @return the length of the whole message including the type byte
     */
    public final int length() {
        return end - start;
    }

    static Instant instant(long pgMicros) {
        return PgTime.toInstant(pgMicros);
    }

    final String utf8(int from, int to) {
        return buf.toString(from, to - from, StandardCharsets.UTF_8);
    }

    /** Compares bytes [from, to) with the UTF-8 encoding of {@code s}, allocation-free for ASCII. */
    final boolean utf8Equals(int from, int to, String s) {
        int n = to - from;
        if (s.length() > n) return false;
        boolean ascii = true;
        for (int i = 0; i < s.length(); i++) {
            if (s.charAt(i) >= 0x80) {
                ascii = false;
                break;
            }
        }
        if (!ascii) return utf8(from, to).equals(s);
        if (s.length() != n) return false;
        for (int i = 0; i < n; i++) {
            if (buf.getByte(from + i) != (byte) s.charAt(i)) return false;
        }
        return true;
    }
}
