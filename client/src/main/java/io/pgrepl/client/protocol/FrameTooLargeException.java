package io.pgrepl.client.protocol;

import io.pgrepl.codec.MalformedMessageException;

/**
 * A backend frame announced a length above the connection's limit
 * ({@code ConnectionConfig.Builder.maxFrameSize}, default 256 MiB). Raised as soon as the 5-byte
 * header is in, before anything is buffered. Deterministic: a logical walsender resends the same
 * row after a reconnect, so the fix is a higher limit (or a smaller row), never a retry.
 */
public final class FrameTooLargeException extends MalformedMessageException {
    private static final long serialVersionUID = 1L;

    /** The whole frame as announced. */
    private final long frameSize;
    /** The limit in force on the connection. */
    private final int maxFrameSize;

    /**
     * A frame over the limit.
     *
     * @param messageType  the type byte, as text
     * @param frameSize    the whole frame as announced, in bytes
     * @param maxFrameSize the limit, in bytes
     */
    public FrameTooLargeException(String messageType, long frameSize, int maxFrameSize) {
        super(messageType, 1, "frame of " + frameSize + " bytes exceeds maxFrameSize " + maxFrameSize
                + " bytes (raise it with ConnectionConfig.Builder.maxFrameSize)");
        this.frameSize = frameSize;
        this.maxFrameSize = maxFrameSize;
    }

    /** {@return the whole frame as announced, in bytes: type byte, length word and payload} */
    public long frameSize() {
        return frameSize;
    }

    /** {@return the limit in force on the connection, in bytes} */
    public int maxFrameSize() {
        return maxFrameSize;
    }
}
