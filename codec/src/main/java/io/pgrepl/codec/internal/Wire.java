package io.pgrepl.codec.internal;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.MalformedMessageException;
import java.nio.charset.StandardCharsets;

/**
 * Bounds-checked reads shared by the backend-message and pgoutput decoders. Every read names a
 * limit (the end of the current message), so a hostile length can never reach the next one.
 */
public final class Wire {
    private Wire() {}

    /**
     * Index of the NUL that ends a String starting at {@code from}, searching no further than
     * {@code limit} (exclusive).
     *
     * @param buf         the buffer holding the message
     * @param from        index of the string's first byte
     * @param limit       end of the current message (exclusive); the NUL must come before it
     * @param messageType the message's protocol name, for the error
     * @param base        index of the message's first byte, so the error names an offset within it
     * @return the index of the terminating NUL byte
     * @throws MalformedMessageException if no NUL comes before {@code limit}
     */
    public static int cstringEnd(ByteBuf buf, int from, int limit, String messageType, int base) {
        int nul = from < limit ? buf.indexOf(from, limit, (byte) 0) : -1;
        if (nul < 0) {
            throw new MalformedMessageException(messageType, from - base, "string not terminated before end of message");
        }
        return nul;
    }

    /**
     * Decodes bytes {@code [from, to)} as UTF-8 (the client_encoding every connection asks for).
     *
     * @param buf  the buffer holding the message
     * @param from index of the first byte
     * @param to   index after the last byte (usually a NUL from {@link #cstringEnd})
     * @return the decoded string
     */
    public static String utf8(ByteBuf buf, int from, int to) {
        return buf.toString(from, to - from, StandardCharsets.UTF_8);
    }

    /**
     * Fails unless {@code need} bytes are available between {@code index} and {@code limit}.
     *
     * @param index       index of the next byte to read
     * @param need        bytes the field needs; a negative count (a hostile length) also fails
     * @param limit       end of the current message (exclusive)
     * @param messageType the message's protocol name, for the error
     * @param base        index of the message's first byte, so the error names an offset within it
     * @param what        the field being read, for the error
     * @throws MalformedMessageException if fewer than {@code need} bytes remain
     */
    public static void require(int index, int need, int limit, String messageType, int base, String what) {
        if (need < 0 || index > limit - need) {
            throw new MalformedMessageException(messageType, index - base,
                    what + " needs " + need + " bytes, " + Math.max(0, limit - index) + " left");
        }
    }
}
