package io.pgrepl.client.auth;

import io.pgrepl.client.internal.auth.TokenThreads;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * Where OAuth bearer tokens come from when a PostgreSQL 18 server asks for SASL
 * {@code OAUTHBEARER} (pg_hba method {@code oauth}). The application obtains the token from its
 * identity provider (client credentials, a workload identity, a cache...); pgrepl only presents
 * it. There is no device-flow UI.
 *
 * <p>Asked once per connection attempt, and only when the server asks for OAuth, so every
 * reconnect (a {@code ReconnectingLogicalStream}, a pool) presents a current token: cache and
 * refresh inside the source. A token the server rejects fails the attempt with
 * {@link AuthenticationException.Reason#TOKEN_REJECTED}; pgrepl never asks again within the
 * attempt. The token never appears in pgrepl's logs, {@code toString()} or messages.
 */
@FunctionalInterface
public interface OAuthBearerTokenSource {
    /**
     * What the token is for (nothing secret): the server, the role and whether the connection
     * is a replication one, so that a source serving several servers can choose an audience.
     *
     * @param host        the server's host name as configured
     * @param port        the server's port
     * @param user        the role name sent in the StartupMessage
     * @param database    the database name
     * @param replication whether the connection is a walsender ({@code replication=database|true})
     */
    record Request(String host, int port, String user, String database, boolean replication) {}

    /**
     * Returns the bearer token (RFC 6750 {@code b64token} characters, without the
     * {@code Bearer } prefix). May complete on any thread; it runs while the server waits, so it
     * should complete well within the server's {@code authentication_timeout} (60 s by default).
     *
     * @param request what the token is for
     * @return completes with the token; failing (or completing with null or an empty string)
     *         fails the connection attempt with an {@link AuthenticationException}
     */
    CompletionStage<String> token(Request request);

    /**
     * A blocking supplier (it may call an identity provider over HTTP): it runs on a small pool
     * of pgrepl daemon threads, never on a connection's event loop.
     *
     * @param supplier returns the current token
     * @return the source
     */
    static OAuthBearerTokenSource ofSupplier(Supplier<String> supplier) {
        Objects.requireNonNull(supplier, "supplier");
        return new OAuthBearerTokenSource() {
            @Override
            public CompletionStage<String> token(Request request) {
                return CompletableFuture.supplyAsync(supplier, TokenThreads.executor());
            }

            @Override
            public String toString() {
                return "OAuthBearerTokenSource[supplier]";
            }
        };
    }
}
