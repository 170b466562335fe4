package io.pgrepl.client.stream;

/**
 * The walsender ended the stream on its own without an error: CommandComplete while still in
 * copy mode, which is what a logical walsender does on server shutdown once the client has
 * confirmed everything sent.
 */
public final class ReplicationShutdownException extends ReplicationException {
    private static final long serialVersionUID = 1L;

    /**
     * The walsender ended the stream without an error.
     *
     * @param message the description to report
     */
    public ReplicationShutdownException(String message) {
        super(message, null);
    }

    @Override
    public boolean isTransient() {
        return true;
    }
}
