package io.pgrepl.client.snapshot.incremental;

/**
 * A snapshot signal that cannot be acted on: bad JSON, a missing or mistyped field, an unknown
 * signal or snapshot type. The message says what is wrong and where (a JSON offset or a field
 * path); the signal text itself is not repeated beyond that, since it may be long.
 */
public final class MalformedSignalException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * A signal that cannot be acted on.
     *
     * @param message what is wrong and where
     */
    public MalformedSignalException(String message) {
        super(message);
    }

    /**
     * A signal that cannot be acted on.
     *
     * @param message what is wrong and where
     * @param cause   the underlying failure
     */
    public MalformedSignalException(String message, Throwable cause) {
        super(message, cause);
    }
}
