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
        /** TLS negotiation, handshake or certificate verification failed. */
        TLS,
        /** A security policy (sslmode, channel_binding, require_auth) refused the server. */
        POLICY,
        /** The server asked for an authentication method the client does not support. */
        UNSUPPORTED_AUTH,
        /** The peer broke the protocol, or is not a PostgreSQL server. */
        PROTOCOL,
        /** The connection could not be made or was lost. */
        CONNECTION,
        /** A connect or receive timeout expired. */
        TIMEOUT,
        /** The server's version cannot take the command or option. */
        UNSUPPORTED_BY_SERVER,
        /** The caller's input was refused before anything was sent. */
        INVALID_ARGUMENT
    }

    /** The classification. */
    private final Kind kind;

    /**
     * A client-side failure.
     *
     * @param kind    its classification
     * @param message what happened, without secrets
     */
    public PgClientException(Kind kind, String message) {
        super(message);
        this.kind = kind;
    }

    /**
     * A client-side failure with its cause.
     *
     * @param kind    its classification
     * @param message what happened, without secrets
     * @param cause   the underlying exception
     */
    public PgClientException(Kind kind, String message, Throwable cause) {
        super(message, cause);
        this.kind = kind;
    }

    /**
     * The classification, to branch on without parsing the message.
     *
     * @return the kind
     */
    public Kind kind() {
        return kind;
    }
}
