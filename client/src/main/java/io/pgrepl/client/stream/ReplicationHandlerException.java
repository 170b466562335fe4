package io.pgrepl.client.stream;

/** The application's handler threw; the stream was stopped (CopyDone) and the cause is attached. */
public final class ReplicationHandlerException extends ReplicationException {
    private static final long serialVersionUID = 1L;

    /**
     * The handler failed.
     *
     * @param cause what the handler threw
     */
    public ReplicationHandlerException(Throwable cause) {
        super("replication handler failed: " + cause, cause);
    }

    @Override
    public boolean isTransient() {
        return false;
    }
}
