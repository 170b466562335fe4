package io.pgrepl.client.config;

/**
 * A connection string or parameter is invalid. The message names the parameter and, for
 * non-secret parameters, the offending value; it never contains a password.
 */
public final class ConnInfoException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    /**
     * An invalid connection string or parameter.
     *
     * @param message names the parameter, and the value unless it is secret
     */
    public ConnInfoException(String message) {
        super(message);
    }
}
