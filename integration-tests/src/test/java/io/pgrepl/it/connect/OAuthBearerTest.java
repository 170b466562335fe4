package io.pgrepl.it.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.PgException;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.auth.AuthenticationException;
import io.pgrepl.client.auth.AuthenticationException.Reason;
import io.pgrepl.client.auth.OAuthBearerTokenSource;
import io.pgrepl.client.auth.OAuthErrorResult;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.replication.SnapshotMode;
import io.pgrepl.testkit.OAuthValidator;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.PgVersions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * SASL OAUTHBEARER against a real PostgreSQL 18 with {@code oauth} lines in pg_hba.conf and a
 * validator module ({@code oauth_validator_libraries}): the kit's {@link OAuthValidator}, compiled
 * with the system C compiler. It accepts two fixed tokens.
 * Without a C compiler the class is skipped; what the server does is then only covered by
 * {@code client}'s {@code OAuthBearerExchangeTest}.
 */
class OAuthBearerTest {
    private static final String GOOD = OAuthValidator.GOOD;
    private static final String GOOD_2 = OAuthValidator.GOOD_2;
    private static final String BAD = "pgrepl-revoked-token.v0";
    private static final String ISSUER = OAuthValidator.ISSUER;
    private static final String SCOPE = OAuthValidator.SCOPE;
    private static PgServer server;
    private static OAuthValidator validator;

    @BeforeAll
    static void start() throws Exception {
        // The module's leak check then fails the run if a token shows up in anything printed.
        List.of(GOOD, GOOD_2, BAD).forEach(io.pgrepl.testkit.secrets.TestSecrets::register);
        Assumptions.assumeTrue(PgVersions.matrix().contains(18), "OAUTHBEARER needs PostgreSQL 18");
        validator = OAuthValidator.compile().orElse(null);
        Assumptions.assumeTrue(validator != null, "no C compiler (cc) to build the OAuth validator module");
        server = PgServer.builder().version(18).setting("oauth_validator_libraries", validator.module().toString()).start();
        server.sql("postgres", "CREATE ROLE oauth_user LOGIN REPLICATION; CREATE ROLE scram_user LOGIN PASSWORD 'scram-pw-1'");
        Path hba = server.dataDir().resolve("pg_hba.conf");
        // First match wins: oauth_user signs in with a token, scram_user with SCRAM, the rest as before.
        Files.writeString(hba, "host all scram_user 127.0.0.1/32 scram-sha-256\n" + Files.readString(hba));
        validator.trust(server, "oauth_user");
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) server.close();
        if (validator != null) validator.close();
    }

    private static ConnectionConfig.Builder cfg(String user) {
        return ConnectionConfig.builder().host(server.host()).port(server.port()).user(user).database("postgres")
                .sslMode(SslMode.DISABLE).connectTimeout(Duration.ofSeconds(10));
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        try {
            return stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception ex ? ex : e;
        }
    }

    private static Throwable failure(CompletionStage<?> stage) throws Exception {
        try {
            stage.toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("expected the connection to fail");
    }

    @Test
    void aSuppliedTokenSignsInAndEachConnectionAsksAgain() throws Exception {
        AtomicInteger asked = new AtomicInteger();
        List<String> tokens = List.of(GOOD, GOOD_2);
        // A refreshing source: the second connection must present the second token.
        ConnectionConfig config = cfg("oauth_user").oauthToken(() -> tokens.get(asked.getAndIncrement())).build();
        try (PgConnection c = await(PgConnection.connect(config))) {
            assertEquals("oauth_user", await(c.query("SELECT current_user")).singleRow().get(0));
        }
        try (PgConnection c = await(PgConnection.connect(config))) {
            assertEquals("oauth_user", await(c.query("SELECT current_user")).singleRow().get(0));
        }
        assertEquals(2, asked.get(), "the supplier ran once per connection");
        assertFalse(config.toString().contains(GOOD), config.toString());
    }

    @Test
    void replicationConnectionsUseTheAsyncSource() throws Exception {
        AtomicInteger asked = new AtomicInteger();
        OAuthBearerTokenSource source = request -> {
            asked.incrementAndGet();
            assertTrue(request.replication(), "the request says replication");
            assertEquals("oauth_user", request.user());
            return CompletableFuture.supplyAsync(() -> GOOD, CompletableFuture.delayedExecutor(200, TimeUnit.MILLISECONDS));
        };
        try (PgConnection c = await(PgConnection.connect(cfg("oauth_user").replication(ReplicationMode.DATABASE)
                .oauthTokenSource(source).requireAuth("oauth").build()))) {
            assertEquals(server.port(), c.config().port());
            var created = await(c.createReplicationSlot(CreateSlotOptions.logical("oauth_slot", "pgoutput")
                    .withTemporary(true).withSnapshot(SnapshotMode.NOTHING)));
            assertEquals("oauth_slot", created.slotName());
            assertTrue(await(c.identifySystem()).xlogPos() > 0);
        }
        assertEquals(1, asked.get());
    }

    @Test
    void aRejectedTokenIsATypedFailureThatSaysWhatTheServerWants() throws Exception {
        AtomicInteger asked = new AtomicInteger();
        Throwable t = failure(PgConnection.connect(cfg("oauth_user").oauthToken(() -> {
            asked.incrementAndGet();
            return BAD;
        }).build()));
        AuthenticationException e = assertInstanceOf(AuthenticationException.class, t);
        assertEquals(Reason.TOKEN_REJECTED, e.reason());
        OAuthErrorResult error = e.oauthError().orElseThrow();
        assertEquals("invalid_token", error.status());
        assertEquals(SCOPE, error.scope());
        assertEquals(ISSUER + "/.well-known/openid-configuration", error.openidConfiguration());
        assertTrue(e.getMessage().contains(SCOPE) && e.getMessage().contains("oauth_user"), e.getMessage());
        PgException fatal = assertInstanceOf(PgException.class, e.getCause());
        assertEquals("28000", fatal.sqlState());
        assertEquals(1, asked.get(), "no second attempt");
        for (Throwable x = e; x != null; x = x.getCause()) {
            assertFalse(String.valueOf(x).contains(BAD), "token in " + x);
        }
    }

    @Test
    void requireAuthRefusesBeforeTheTokenIsAsked() throws Exception {
        AtomicInteger asked = new AtomicInteger();
        for (String policy : List.of("scram-sha-256", "!oauth", "password,md5")) {
            Throwable t = failure(PgConnection.connect(cfg("oauth_user").requireAuth(policy).oauthToken(() -> {
                asked.incrementAndGet();
                return GOOD;
            }).build()));
            AuthenticationException e = assertInstanceOf(AuthenticationException.class, t, policy);
            assertEquals(Reason.POLICY_REFUSED, e.reason(), policy);
            assertTrue(e.getMessage().contains("OAUTHBEARER") || e.getMessage().contains("SASL"), e.getMessage());
        }
        assertEquals(0, asked.get(), "the token source was never asked");
        // And the other way round: require_auth=oauth against a SCRAM line.
        Throwable t = failure(PgConnection.connect(cfg("scram_user").password("scram-pw-1").requireAuth("oauth")
                .oauthToken(() -> GOOD).build()));
        AuthenticationException e = assertInstanceOf(AuthenticationException.class, t);
        assertEquals(Reason.POLICY_REFUSED, e.reason());
        assertTrue(e.getMessage().contains("SCRAM-SHA-256"), e.getMessage());
    }

    @Test
    void aFailingSourceOrNoSourceFailsTheAttempt() throws Exception {
        IllegalStateException boom = new IllegalStateException("identity provider unreachable");
        Throwable t = failure(PgConnection.connect(cfg("oauth_user").oauthToken(() -> {
            throw boom;
        }).build()));
        AuthenticationException e = assertInstanceOf(AuthenticationException.class, t);
        assertEquals(Reason.TOKEN_SOURCE_FAILED, e.reason());
        assertSame(boom, e.getCause());

        AuthenticationException none = assertInstanceOf(AuthenticationException.class,
                failure(PgConnection.connect(cfg("oauth_user").build())));
        assertEquals(Reason.NO_TOKEN, none.reason());

        // A token with a trailing newline (a file read as is) is refused before it is sent, without echoing it.
        AuthenticationException bad = assertInstanceOf(AuthenticationException.class,
                failure(PgConnection.connect(cfg("oauth_user").oauthToken(() -> GOOD + "\n").build())));
        assertEquals(Reason.INVALID_TOKEN, bad.reason());
        assertFalse(bad.getMessage().contains(GOOD), bad.getMessage());
        // The server is still fine and the connection still works with the real token.
        try (PgConnection c = await(PgConnection.connect(cfg("oauth_user").oauthToken(() -> GOOD).build()))) {
            assertEquals("1", await(c.query("SELECT 1")).singleRow().get(0));
        }
    }
}
