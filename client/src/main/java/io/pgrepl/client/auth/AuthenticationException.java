package io.pgrepl.client.auth;

import java.util.Objects;
import java.util.Optional;

/**
 * Authentication failed or was refused by the client's own policy.
 *
 * <p>Messages are built only from fixed text and non-secret values (method names, option values,
 * lengths): never from a password, a salted password, a key, a proof, a nonce or an OAuth token.
 * Not worth retrying as is: the same secret meets the same answer.
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
        PROTOCOL_VIOLATION,
        /** The server asked for OAUTHBEARER but no token source is configured, or it gave no token. */
        NO_TOKEN,
        /** The token source's token is not an RFC 6750 b64token or is too long. */
        INVALID_TOKEN,
        /** The OAuth token source failed (its exception is the cause). */
        TOKEN_SOURCE_FAILED,
        /** The server's validator rejected the OAuth bearer token ({@link #oauthError()} says what it wants). */
        TOKEN_REJECTED
    }

    /** Why authentication failed. */
    private final Reason reason;
    /** The server's OAUTHBEARER error result, for {@link Reason#TOKEN_REJECTED}. */
    private final OAuthErrorResult oauthError;

    /**
     * An authentication failure.
     *
     * @param reason why it failed
     * @param message the message; never contains a password
     */
    public AuthenticationException(Reason reason, String message) {
        this(reason, message, null);
    }

    /**
     * An OAuth bearer token rejection.
     *
     * @param reason     why it failed
     * @param message    the message; never contains a token
     * @param oauthError the server's error result, or null
     */
    public AuthenticationException(Reason reason, String message, OAuthErrorResult oauthError) {
        super(message);
        this.reason = Objects.requireNonNull(reason, "reason");
        this.oauthError = oauthError;
    }

    /** {@return the server's OAUTHBEARER error result (status, scope, discovery URL), when it rejected a token} */
    public Optional<OAuthErrorResult> oauthError() {
        return Optional.ofNullable(oauthError);
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
