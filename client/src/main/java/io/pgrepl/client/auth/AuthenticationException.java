package io.pgrepl.client.auth;

import java.util.Objects;

/**
 * Authentication failed or was refused by the client's own policy.
 *
 * <p>Messages are built only from fixed text and non-secret values (method names, option values,
 * lengths): never from a password, a salted password, a key, a proof or a nonce.
 */
public final class AuthenticationException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Why authentication stopped. */
    public enum Reason {
        /** {@code require_auth} does not allow what the server asked for (or that it asked for nothing). */
        POLICY_REFUSED,
        /** {@code channel_binding=require} cannot be honoured by this exchange. */
        CHANNEL_BINDING_REQUIRED,
        /** The server certificate's signature algorithm has no usable digest (e.g. Ed25519). */
        CHANNEL_BINDING_IMPOSSIBLE,
        /** The server offered SCRAM-SHA-256-PLUS over a connection without TLS (a stripping proxy?). */
        CHANNEL_BINDING_WITHOUT_TLS,
        /** No password is available but the server asked for one. */
        NO_PASSWORD,
        /** The password is longer than PostgreSQL accepts or contains a NUL byte. */
        INVALID_PASSWORD,
        /** The server asked for a method this client does not implement (GSS, SSPI, Kerberos, ...). */
        UNSUPPORTED_METHOD,
        /** None of the server's SASL mechanisms is supported (or allowed). */
        UNSUPPORTED_MECHANISM,
        /** The server's nonce does not extend the client's nonce. */
        NONCE_MISMATCH,
        /** A SCRAM message from the server does not follow the grammar. */
        MALFORMED_SERVER_MESSAGE,
        /** The server's iteration count is larger than this client agrees to compute. */
        ITERATION_COUNT_TOO_HIGH,
        /** The server's final signature does not prove knowledge of the password. */
        SERVER_SIGNATURE_INVALID,
        /** The server reported a SCRAM error ({@code e=}) in its final message. */
        SERVER_ERROR,
        /** Messages arrived out of order (e.g. AuthenticationOk before SCRAM completed). */
        PROTOCOL_VIOLATION
    }

    /** Why authentication failed. */
    private final Reason reason;

    /**
     * An authentication failure.
     *
     * @param reason why it failed
     * @param message the message; never contains a password
     */
    public AuthenticationException(Reason reason, String message) {
        super(message);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    /** {@return why authentication failed} */
    public Reason reason() {
        return reason;
    }

    @Override
    public String toString() {
        return "AuthenticationException[" + reason + "]: " + getMessage();
    }
}
