package io.pgrepl.client;

/**
 * A failure detected on the client side: TLS or certificate verification, a security policy
 * (sslmode, channel_binding, require_auth) refusing the server, an unsupported authentication
 * method, a protocol violation, a connection lost or timed out, or a command the server version
 * cannot take. Never carries secrets.
 */
public class PgClientException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Coarse classification, so callers can branch without parsing messages. */
    public enum Kind {
        TLS,
        POLICY,
        UNSUPPORTED_AUTH,
        PROTOCOL,
        CONNECTION,
        TIMEOUT,
        UNSUPPORTED_BY_SERVER,
        INVALID_ARGUMENT
    }

    private final Kind kind;

    public PgClientException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    public PgClientException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    public Kind kind() {
        return kind;
    }
}
