package io.pgrepl.codec;

import io.netty.buffer.ByteBuf;
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
     */
    public static int cstringEnd(ByteBuf buf, int from, int limit, String messageType, int base) {
        int nul = from < limit ? buf.indexOf(from, limit, (byte) 0) : -1;
        if (nul < 0) {
            throw new MalformedMessageException(messageType, from - base, "string not terminated before end of message");
        }
        return nul;
    }

    /** Decodes bytes {@code [from, to)} as UTF-8 (the client_encoding every connection asks for). */
    public static String utf8(ByteBuf buf, int from, int to) {
        return buf.toString(from, to - from, StandardCharsets.UTF_8);
    }

    /** Fails unless {@code need} bytes are available between {@code index} and {@code limit}. */
    public static void require(int index, int need, int limit, String messageType, int base, String what) {
        if (need < 0 || index > limit - need) {
            throw new MalformedMessageException(messageType, index - base,
                    what + " needs " + need + " bytes, " + Math.max(0, limit - index) + " left");
        }
    }
}
