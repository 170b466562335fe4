package io.pgrepl.client.stream;

/**
 * Why a replication stream ended other than by {@code stop()}. The subclasses are the distinct
 * ways a server-side end looks on the wire: an ErrorResponse ({@link ReplicationServerErrorException}),
 * a clean server shutdown ({@link ReplicationShutdownException}), the socket closing or going
 * silent ({@link ReplicationConnectionLostException}), pgoutput data that does not decode
 * ({@link ReplicationProtocolException}); plus the application's own handler
 * failing ({@link ReplicationHandlerException}) and the slot guard stopping the stream before the
 * server would invalidate the slot ({@link SlotGuardTrippedException}).
 */
public abstract sealed class ReplicationException extends RuntimeException
        permits ReplicationServerErrorException, ReplicationShutdownException, ReplicationConnectionLostException,
        ReplicationHandlerException, ReplicationProtocolException, SlotGuardTrippedException {
    private static final long serialVersionUID = 1L;

    ReplicationException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * Whether a new connection may succeed later (the reconnect policy retries only these).
     *
     * @return true for transient failures
     */
    public abstract boolean isTransient();
}
