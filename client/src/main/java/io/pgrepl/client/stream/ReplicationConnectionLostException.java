package io.pgrepl.client.stream;

/**
 * The connection closed or went silent: EOF/reset (what wal_sender_timeout looks like: the
 * walsender closes without an ErrorResponse), or the stream's receive timeout expired.
 */
public final class ReplicationConnectionLostException extends ReplicationException {
    private static final long serialVersionUID = 1L;

    /**
     * The connection ended.
     *
     * @param message what was seen (EOF, reset, receive timeout)
     * @param cause   the I/O failure, or null
     */
    public ReplicationConnectionLostException(String message, Throwable cause) {
        super(message, cause);
    }

    @Override
    public boolean isTransient() {
        return true;
    }
}
