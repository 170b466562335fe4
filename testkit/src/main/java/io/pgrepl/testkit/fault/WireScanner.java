package io.pgrepl.testkit.fault;

import io.netty.buffer.ByteBuf;

/**
 * Finds message boundaries in one direction of a PostgreSQL connection as bytes pass through
 * the proxy, without copying: a typed message is a type byte, an int32 length (itself
 * included) and a body. The first {@code peek} body bytes are collected so that the owner can
 * see what a frame is (an Authentication request code, a CopyData kind, a status update's
 * positions) before deciding where to cut. Bodies beyond the peek are skipped in bulk.
 *
 * <p>The frontend's first messages have no type byte (SSLRequest, GSSENCRequest, then the
 * StartupMessage); the backend answers an SSL/GSS request with one untyped byte. An encrypted
 * session is opaque: scanning stops.
 */
final class WireScanner {
    /** Told each frame once its header and peek bytes are in; returns how many more bytes to forward before a cut, or -1. */
    interface FrameListener {
        long onFrame(byte type, int bodyLength, byte[] peek, int peeked);
    }

    private static final int SSL_REQUEST = 80877103;
    private static final int GSSENC_REQUEST = 80877104;

    private final boolean frontend;
    private final byte[] peek;
    private final byte[] header = new byte[8];
    private int headerFill;
    private byte type;
    private int bodyLength = -1;
    private int peeked;
    private long bodyLeft;
    private boolean untypedPhase;
    private boolean opaque;
    /** Backend side: one-byte answers owed to SSL/GSS requests (set by the frontend scanner). */
    int negotiationAnswersOwed;
    /** Frontend side: the backend scanner whose owed answers this one counts. */
    WireScanner peer;

    WireScanner(boolean frontend, int peekBytes) {
        this.frontend = frontend;
        this.peek = new byte[peekBytes];
        this.untypedPhase = frontend;
    }

    boolean opaque() {
        return opaque;
    }

    void goOpaque() {
        opaque = true;
        if (peer != null) peer.opaque = true;
    }

    /**
     * Scans at most {@code max} bytes from {@code buf}'s reader index (not moving it); stops right
     * after a frame whose listener asked for a cut. Returns the bytes scanned and, through
     * {@code cutOut[0]}, the cut distance the listener returned (-1 when none).
     */
    int scan(ByteBuf buf, int max, FrameListener listener, long[] cutOut) {
        cutOut[0] = -1;
        if (opaque) return max;
        int start = buf.readerIndex();
        int i = 0;
        while (i < max) {
            if (!frontend && negotiationAnswersOwed > 0 && headerFill == 0 && bodyLength < 0) {
                byte answer = buf.getByte(start + i++);
                negotiationAnswersOwed--;
                if (answer != 'N') { // 'S' or 'G': the rest is encrypted
                    goOpaque();
                    return max;
                }
                continue;
            }
            if (bodyLength < 0) {
                int headerSize = untypedPhase ? 8 : 5;
                header[headerFill++] = buf.getByte(start + i++);
                if (headerFill < headerSize) continue;
                headerFill = 0;
                if (untypedPhase) {
                    int len = readInt(header, 0);
                    int code = readInt(header, 4);
                    type = 0;
                    bodyLength = Math.max(0, len - 8);
                    if (code == SSL_REQUEST || code == GSSENC_REQUEST) {
                        if (peer != null) peer.negotiationAnswersOwed++;
                    } else {
                        untypedPhase = false; // StartupMessage or CancelRequest: typed from now on
                    }
                } else {
                    type = header[0];
                    bodyLength = Math.max(0, readInt(header, 1) - 4);
                }
                peeked = 0;
                bodyLeft = bodyLength;
                if (bodyLength == 0 || peek.length == 0) {
                    long cut = deliver(listener);
                    if (cut >= 0) {
                        cutOut[0] = cut;
                        return i;
                    }
                }
                continue;
            }
            if (peeked < peek.length && peeked < bodyLength) {
                peek[peeked++] = buf.getByte(start + i++);
                bodyLeft--;
                if (peeked == peek.length || peeked == bodyLength) {
                    long cut = deliver(listener);
                    if (cut >= 0) {
                        cutOut[0] = cut;
                        return i;
                    }
                }
                continue;
            }
            int skip = (int) Math.min(bodyLeft, max - i);
            i += skip;
            bodyLeft -= skip;
            if (bodyLeft == 0) bodyLength = -1;
        }
        return i;
    }

    private long deliver(FrameListener listener) {
        long cut = type == 0 ? -1 : listener.onFrame(type, bodyLength, peek, peeked);
        if (bodyLeft == 0) bodyLength = -1;
        return cut;
    }

    /** Body bytes of the current frame not scanned yet (0 between frames). */
    long bodyLeft() {
        return bodyLength < 0 ? 0 : bodyLeft;
    }

    static int readInt(byte[] b, int at) {
        return ((b[at] & 0xff) << 24) | ((b[at + 1] & 0xff) << 16) | ((b[at + 2] & 0xff) << 8) | (b[at + 3] & 0xff);
    }

    static long readLong(byte[] b, int at) {
        return ((long) readInt(b, at) << 32) | (readInt(b, at + 4) & 0xffffffffL);
    }
}
