package io.pgrepl.client.internal.auth;

import io.pgrepl.client.auth.AuthRequestKind;
import io.pgrepl.client.auth.AuthenticationException;
import io.pgrepl.client.auth.AuthenticationException.Reason;
import io.pgrepl.client.auth.ChannelBindingMode;
import io.pgrepl.client.auth.OAuthBearerTokenSource;
import io.pgrepl.client.auth.PasswordSource;
import io.pgrepl.client.auth.RequireAuth;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * Answers the backend's authentication requests for one connection attempt, enforcing
 * {@code require_auth} and {@code channel_binding} before any secret leaves the client, the way
 * libpq does. Transport-free: the pipeline decodes {@code 'R'} messages, calls the matching
 * method and sends what it returns in a {@code 'p'} message. Any exception is final: close the
 * connection. Not thread-safe (one event loop drives it).
 *
 * <p>One deliberate difference from libpq: with {@code channel_binding=prefer} and a server
 * certificate whose signature algorithm has no digest (Ed25519...), libpq picks
 * SCRAM-SHA-256-PLUS and then fails; this class falls back to SCRAM-SHA-256 with flag {@code n}
 * (never {@code y}, which the server would rightly take for a downgrade).
 *
 * <p>SASL OAUTHBEARER (PostgreSQL 18) is chosen, as libpq does, only when the server offers no
 * usable SCRAM mechanism; its token comes from an {@link OAuthBearerTokenSource}, possibly
 * later ({@link #onSaslRequestAsync}). While that token is awaited the server waits too, and
 * nothing else drives this object.
 */
public final class Authenticator {
    /** PostgreSQL refuses longer passwords (libpq and the server's SASLprep limit). */
    public static final int MAX_PASSWORD_BYTES = 1024;

    private enum State { AWAITING_REQUEST, PASSWORD_SENT, SASL_IN_PROGRESS, SASL_DONE, OK, FAILED }

    private final String user;
    private final PasswordSource passwords;
    private final ChannelBindingMode channelBinding;
    private final RequireAuth requireAuth;
    private final X509Certificate serverCertificate;

    private final OAuthBearerTokenSource tokenSource;
    private final OAuthBearerTokenSource.Request tokenRequest;

    private State state = State.AWAITING_REQUEST;
    private ScramSha256Client scram;
    private OAuthBearerClient oauth;

    /**
     * @param user              the startup user (used by MD5)
     * @param passwords         asked only when the server wants a password
     * @param channelBinding    libpq's {@code channel_binding}
     * @param requireAuth       libpq's {@code require_auth}
     * @param serverCertificate the server's leaf certificate when TLS is in use, empty without TLS
     */
    public Authenticator(String user, PasswordSource passwords, ChannelBindingMode channelBinding,
                         RequireAuth requireAuth, Optional<X509Certificate> serverCertificate) {
        this(user, passwords, channelBinding, requireAuth, serverCertificate, null, null);
    }

    /**
     * With OAuth: as the other constructor, plus where bearer tokens come from.
     *
     * @param tokenSource  asked only when the server wants OAUTHBEARER; null for none
     * @param tokenRequest what the token is for (passed to the source)
     */
    public Authenticator(String user, PasswordSource passwords, ChannelBindingMode channelBinding,
                         RequireAuth requireAuth, Optional<X509Certificate> serverCertificate,
                         OAuthBearerTokenSource tokenSource, OAuthBearerTokenSource.Request tokenRequest) {
        this.tokenSource = tokenSource;
        this.tokenRequest = tokenRequest;
        this.user = Objects.requireNonNull(user, "user");
        this.passwords = Objects.requireNonNull(passwords, "passwords");
        this.channelBinding = Objects.requireNonNull(channelBinding, "channelBinding");
        this.requireAuth = Objects.requireNonNull(requireAuth, "requireAuth");
        this.serverCertificate = serverCertificate.orElse(null);
    }

    private boolean tls() {
        return serverCertificate != null;
    }

    /**
     * AuthenticationCleartextPassword: returns the password bytes (the caller appends the NUL).
     *
     * @return the password bytes; the caller clears them
     * @throws AuthenticationException if the policy refuses it or no password is known
     */
    public byte[] onCleartextRequest() {
        return guarded(() -> {
            startPasswordMethod(AuthRequestKind.CLEARTEXT_PASSWORD);
            byte[] password = requirePassword();
            state = State.PASSWORD_SENT;
            return password;
        });
    }

    /**
     * AuthenticationMD5Password: returns the 35 ASCII bytes to send (the caller appends the NUL).
     *
     * @param salt the 4-byte salt
     * @return the bytes to send
     * @throws AuthenticationException if the policy refuses it or no password is known
     */
    public byte[] onMd5Request(byte[] salt) {
        return guarded(() -> {
            if (salt == null || salt.length != 4) {
                throw new AuthenticationException(Reason.PROTOCOL_VIOLATION, "MD5 salt must be 4 bytes");
            }
            startPasswordMethod(AuthRequestKind.MD5_PASSWORD);
            byte[] password = requirePassword();
            try {
                byte[] answer = Md5Password.encode(user, password, salt).getBytes(StandardCharsets.US_ASCII);
                state = State.PASSWORD_SENT;
                return answer;
            } finally {
                Arrays.fill(password, (byte) 0);
            }
        });
    }

    /**
     * AuthenticationSASL: chooses the mechanism and builds client-first-message.
     *
     * @param mechanisms the mechanisms the server offers
     * @return the chosen mechanism and the SASLInitialResponse payload
     * @throws AuthenticationException if no offered mechanism is acceptable or channel binding is required but impossible
     */
    public SaslInitial onSaslRequest(List<String> mechanisms) {
        try {
            return onSaslRequestAsync(mechanisms).toCompletableFuture().join();
        } catch (CompletionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
    }

    /**
     * AuthenticationSASL, when the answer may have to wait for an OAuth token. SCRAM answers at
     * once; OAUTHBEARER when the token source completes (its failures complete the stage
     * exceptionally with an {@link AuthenticationException}).
     *
     * @param mechanisms the mechanisms the server offers
     * @return the chosen mechanism and the SASLInitialResponse payload (the caller zeroes it)
     * @throws AuthenticationException as {@link #onSaslRequest}
     */
    public CompletionStage<SaslInitial> onSaslRequestAsync(List<String> mechanisms) {
        CompletionStage<SaslInitial> oauthStart = guarded(() -> {
            requireAuth.check(AuthRequestKind.SASL);
            if (channelBinding == ChannelBindingMode.REQUIRE && !tls()) {
                throw new AuthenticationException(Reason.CHANNEL_BINDING_REQUIRED,
                        "channel binding required, but SSL not in use");
            }
            expectState(State.AWAITING_REQUEST, "duplicate SASL authentication request");
            boolean plusOffered = false;
            boolean plainOffered = false;
            for (String m : mechanisms) {
                if (m.equals(ScramSha256Client.MECHANISM_PLUS)) {
                    if (!tls()) {
                        throw new AuthenticationException(Reason.CHANNEL_BINDING_WITHOUT_TLS,
                                "server offered SCRAM-SHA-256-PLUS authentication over a non-SSL connection");
                    }
                    plusOffered = requireAuth.allowsMechanism(m);
                } else if (m.equals(ScramSha256Client.MECHANISM)) {
                    plainOffered = requireAuth.allowsMechanism(m);
                }
            }
            boolean usePlus = plusOffered && channelBinding != ChannelBindingMode.DISABLE;
            if (!usePlus && !plainOffered) {
                if (mechanisms.contains(OAuthBearerClient.MECHANISM) && requireAuth.allowsMechanism(OAuthBearerClient.MECHANISM)) {
                    return startOAuth();
                }
                for (String m : mechanisms) {
                    if (m.equals(OAuthBearerClient.MECHANISM) || m.startsWith("SCRAM-SHA-256")) {
                        requireAuth.refuseMechanism(m);
                    }
                }
                throw new AuthenticationException(Reason.UNSUPPORTED_MECHANISM,
                        "none of the server's SASL authentication mechanisms are supported");
            }
            if (channelBinding == ChannelBindingMode.REQUIRE && !usePlus) {
                throw new AuthenticationException(Reason.CHANNEL_BINDING_REQUIRED,
                        "channel binding is required, but server did not offer an authentication method "
                                + "that supports channel binding");
            }
            byte[] certificateHash = null;
            if (usePlus) {
                try {
                    certificateHash = TlsServerEndPoint.certificateHash(serverCertificate);
                } catch (AuthenticationException e) {
                    if (channelBinding == ChannelBindingMode.REQUIRE || !plainOffered) {
                        throw e;
                    }
                    usePlus = false;
                }
            }
            ScramSha256Client.CbindFlag flag;
            if (usePlus) {
                flag = ScramSha256Client.CbindFlag.TLS_SERVER_END_POINT;
            } else if (tls() && channelBinding != ChannelBindingMode.DISABLE && !plusOffered) {
                flag = ScramSha256Client.CbindFlag.CLIENT_ONLY;
            } else {
                flag = ScramSha256Client.CbindFlag.NONE;
            }
            byte[] password = requirePassword();
            try {
                scram = new ScramSha256Client(password, flag, certificateHash);
            } finally {
                Arrays.fill(password, (byte) 0);
            }
            state = State.SASL_IN_PROGRESS;
            return CompletableFuture.completedFuture(new SaslInitial(scram.mechanism(), scram.clientFirstMessage()));
        });
        return oauthStart;
    }

    /** Asks the token source; libpq's require_auth counts the exchange done once the token is sent. */
    private CompletionStage<SaslInitial> startOAuth() {
        if (channelBinding == ChannelBindingMode.REQUIRE) {
            throw new AuthenticationException(Reason.CHANNEL_BINDING_REQUIRED,
                    "channel binding is required, but server did not offer an authentication method "
                            + "that supports channel binding");
        }
        if (tokenSource == null) {
            throw new AuthenticationException(Reason.NO_TOKEN, "server requires OAuth bearer authentication "
                    + "(SASL OAUTHBEARER), but no token source is configured (ConnectionConfig.Builder.oauthTokenSource)");
        }
        oauth = new OAuthBearerClient();
        state = State.SASL_IN_PROGRESS;
        CompletionStage<String> token;
        try {
            token = Objects.requireNonNull(tokenSource.token(tokenRequest), "token source returned a null stage");
        } catch (RuntimeException e) {
            throw OAuthBearerClient.sourceFailed(e);
        }
        return token.handle((t, error) -> {
            try {
                if (error != null) throw OAuthBearerClient.sourceFailed(error);
                return new SaslInitial(OAuthBearerClient.MECHANISM, OAuthBearerClient.initialResponse(t));
            } catch (RuntimeException e) {
                destroy();
                throw e;
            }
        });
    }


    /**
     * AuthenticationSASLContinue: verifies server-first-message and returns client-final-message.
     *
     * @param serverFirst the server-first-message
     * @return the client-final-message
     * @throws AuthenticationException on a malformed message or out of order
     */
    public byte[] onSaslContinue(byte[] serverFirst) {
        return guarded(() -> {
            requireAuth.check(AuthRequestKind.SASL_CONTINUE);
            expectState(State.SASL_IN_PROGRESS, "AuthenticationSASLContinue without AuthenticationSASL");
            return oauth != null ? oauth.onServerError(serverFirst) : scram.handleServerFirst(serverFirst);
        });
    }

    /**
     * AuthenticationSASLFinal: verifies the server signature. Nothing is sent back.
     *
     * @param serverFinal the server-final-message
     * @throws AuthenticationException on a wrong server signature or a server error
     */
    public void onSaslFinal(byte[] serverFinal) {
        guarded(() -> {
            requireAuth.check(AuthRequestKind.SASL_FINAL);
            expectState(State.SASL_IN_PROGRESS, "AuthenticationSASLFinal without AuthenticationSASL");
            if (oauth != null) oauth.onFinal();
            scram.handleServerFinal(serverFinal);
            state = State.SASL_DONE;
            return null;
        });
    }

    /**
     * GSS, SSPI, Kerberos or an unknown code: policy decides the message, then it is refused as
     * unsupported. Always throws.
     *
     * @param kind the request
     * @throws AuthenticationException always
     */
    public void onUnsupportedRequest(AuthRequestKind kind) {
        guarded(() -> {
            requireAuth.check(kind);
            checkChannelBindingAllowsNonSasl();
            throw new AuthenticationException(Reason.UNSUPPORTED_METHOD,
                    "authentication method " + kind + " not supported ("
                            + kind.description() + ")");
        });
    }

    /**
     * AuthenticationOk: throws unless the policies are satisfied and any SCRAM exchange was
     * completed with a verified server signature.
     */
    public void onAuthenticationOk() {
        guarded(() -> {
            if (state == State.SASL_IN_PROGRESS && oauth != null) {
                oauth.onOk();
                state = State.SASL_DONE;
            }
            if (state == State.SASL_IN_PROGRESS) {
                throw new AuthenticationException(Reason.PROTOCOL_VIOLATION,
                        "server sent AuthenticationOk before the SCRAM exchange completed");
            }
            if (state != State.AWAITING_REQUEST && state != State.PASSWORD_SENT && state != State.SASL_DONE) {
                throw new AuthenticationException(Reason.PROTOCOL_VIOLATION, "unexpected AuthenticationOk");
            }
            requireAuth.checkCompleted(state == State.PASSWORD_SENT || state == State.SASL_DONE);
            if (channelBinding == ChannelBindingMode.REQUIRE && (scram == null || !scram.isChannelBound())) {
                throw new AuthenticationException(Reason.CHANNEL_BINDING_REQUIRED,
                        "channel binding required, but server authenticated client without channel binding");
            }
            state = State.OK;
            return null;
        });
    }

    /**
     * True after AuthenticationOk was accepted.
     *
     * @return whether authentication is complete
     */
    public boolean isAuthenticated() {
        return state == State.OK;
    }

    /**
     * True when SCRAM-SHA-256-PLUS completed: the server proved it holds the TLS key and the password.
     *
     * @return whether the exchange was channel-bound
     */
    public boolean isChannelBound() {
        return scram != null && scram.isChannelBound();
    }

    /**
     * The SASL mechanism in use, if any.
     *
     * @return the mechanism name, or empty
     */
    public Optional<String> saslMechanism() {
        return oauth != null ? Optional.of(OAuthBearerClient.MECHANISM)
                : scram == null ? Optional.empty() : Optional.of(scram.mechanism());
    }

    /**
     * The typed failure for the server's closing FATAL error when it follows an OAUTHBEARER
     * error result (what token the server wants), else empty.
     *
     * @param serverError the server's error, kept as the cause
     * @return the {@link Reason#TOKEN_REJECTED} failure, or empty
     */
    public Optional<AuthenticationException> oauthRejection(Throwable serverError) {
        return oauth == null ? Optional.empty() : Optional.ofNullable(oauth.rejected(user, serverError));
    }

    /** Clears SCRAM state; call when the connection attempt ends early. */
    public void destroy() {
        if (scram != null) {
            scram.destroy();
        }
        if (state != State.OK) {
            state = State.FAILED;
        }
    }

    @Override
    public String toString() {
        return "Authenticator[user=" + user + ", channel_binding=" + channelBinding.keyword() + ", "
                + requireAuth + ", tls=" + tls() + ", " + state + "]";
    }

    private void startPasswordMethod(AuthRequestKind kind) {
        requireAuth.check(kind);
        checkChannelBindingAllowsNonSasl();
        expectState(State.AWAITING_REQUEST, "unexpected second authentication request");
    }

    private void checkChannelBindingAllowsNonSasl() {
        if (channelBinding == ChannelBindingMode.REQUIRE) {
            throw new AuthenticationException(Reason.CHANNEL_BINDING_REQUIRED,
                    "channel binding required but not supported by server's authentication request");
        }
    }

    private void expectState(State expected, String message) {
        if (state != expected) {
            throw new AuthenticationException(Reason.PROTOCOL_VIOLATION, message);
        }
    }

    private byte[] requirePassword() {
        byte[] password = passwords.password().orElse(null);
        if (password == null || password.length == 0) {
            throw new AuthenticationException(Reason.NO_PASSWORD,
                    "password authentication requested but no password supplied");
        }
        if (password.length > MAX_PASSWORD_BYTES) {
            Arrays.fill(password, (byte) 0);
            throw new AuthenticationException(Reason.INVALID_PASSWORD,
                    "password is longer than " + MAX_PASSWORD_BYTES + " bytes");
        }
        for (byte b : password) {
            if (b == 0) {
                Arrays.fill(password, (byte) 0);
                throw new AuthenticationException(Reason.INVALID_PASSWORD, "password contains a NUL byte");
            }
        }
        return password;
    }

    private interface Step<T> {
        T run();
    }

    /** Every failure is final: mark failed and forget secrets before rethrowing. */
    private <T> T guarded(Step<T> step) {
        if (state == State.FAILED) {
            throw new AuthenticationException(Reason.PROTOCOL_VIOLATION, "authentication already failed");
        }
        try {
            return step.run();
        } catch (RuntimeException e) {
            destroy();
            state = State.FAILED;
            throw e;
        }
    }
}
