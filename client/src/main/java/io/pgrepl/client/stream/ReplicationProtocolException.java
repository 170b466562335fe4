package io.pgrepl.client.stream;

import io.pgrepl.codec.MalformedMessageException;

/**
 * The server's pgoutput data could not be decoded (malformed message, unknown message type,
 * a change for a relation never described). Not transient: a new connection would be sent the
 * same bytes again. The stream was stopped (CopyDone); the decoder's exception is the cause.
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

    @Override
    public boolean isTransient() {
        return false;
    }
}
