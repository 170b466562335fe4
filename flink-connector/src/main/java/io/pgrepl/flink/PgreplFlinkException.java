package io.pgrepl.flink;

/**
 * A failure of the pgrepl Flink source that retrying does not cure as it stands (a setting the
 * source refuses, a table it cannot capture, a slot confirmed past the state being restored, a
 * TRUNCATE it must not skip): the message says what is wrong and what to change. Never carries a
 * password.
 */
public class PgreplFlinkException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /**
     * A failure.
     *
     * @param message what happened and what to do
     */
    public PgreplFlinkException(String message) {
        super(message);
    }

    /**
     * A failure with its cause.
     *
     * @param message what happened and what to do
     * @param cause   the underlying error
     */
    public PgreplFlinkException(String message, Throwable cause) {
        super(message, cause);
    }
}
