package io.pgrepl.client.stream;

import io.pgrepl.client.PgClientException;
import io.pgrepl.codec.MalformedMessageException;

/**
 * The server's bytes break the protocol: pgoutput that does not decode (malformed message, unknown
 * message type, a change for a relation never described), or framing and copy-mode violations
 * below it (a frame over {@code maxFrameSize}, a bad length, a message out of place). Not
 * transient: a new connection would be sent the same bytes again, so it is never retried. The
 * decoder's exception is the cause.
 */
public final class ReplicationProtocolException extends ReplicationException {
    private static final long serialVersionUID = 1L;

    /**
     * A message did not decode.
     *
     * @param cause the decoder's error (message type, offset, reason)
     */
    public ReplicationProtocolException(MalformedMessageException cause) {
        super("protocol violation in the replication stream: " + cause.getMessage(), cause);
    }

    /**
     * A framing or protocol-state violation found below pgoutput: a frame over the connection's
     * {@code maxFrameSize} ({@link io.pgrepl.client.protocol.FrameTooLargeException}), a bad frame
     * length, a malformed XLogData or keepalive, or a message that has no place in copy mode.
     *
     * @param cause the violation, kind PROTOCOL
     */
    public ReplicationProtocolException(PgClientException cause) {
        super("protocol violation in the replication stream: " + cause.getMessage(), cause);
    }

    @Override
    public boolean isTransient() {
        return false;
    }
}
