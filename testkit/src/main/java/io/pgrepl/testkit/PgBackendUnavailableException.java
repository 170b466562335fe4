package io.pgrepl.testkit;

/**
 * The selected backend cannot run here (no Docker engine, or a feature the backend lacks).
 * The JUnit extensions turn it into a skipped test.
 */
public class PgBackendUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public PgBackendUnavailableException(String message) {
        super(message);
    }

    public PgBackendUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
