package io.pgrepl.client.internal.auth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.auth.AuthenticationException;
import io.pgrepl.client.auth.AuthenticationException.Reason;
import io.pgrepl.client.auth.ChannelBindingMode;
import io.pgrepl.client.auth.OAuthBearerTokenSource;
import io.pgrepl.client.auth.PasswordSource;
import io.pgrepl.client.auth.RequireAuth;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * The OAUTHBEARER exchange against a forged server ({@code integration-tests}' OAuthBearerTest
 * covers a real PostgreSQL 18): the server misbehaviours a real server cannot be made to show
 * (SASLFinal, AuthenticationOk after an error, malformed or hostile error JSON) and the exact
 * bytes of the initial response.
 */
class OAuthBearerExchangeTest {
    private static final String TOKEN = "eyJhbGciOi.secret-part_42~+/==";
    private static final List<String> OAUTH = List.of("OAUTHBEARER");
    static {
        io.pgrepl.testkit.secrets.TestSecrets.register(TOKEN);
    }

    private static final OAuthBearerTokenSource.Request REQUEST =
            new OAuthBearerTokenSource.Request("db.example", 5432, "alice", "app", true);

    private static Authenticator auth(OAuthBearerTokenSource source, String requireAuth) {
        return new Authenticator("alice", PasswordSource.none(), ChannelBindingMode.PREFER, RequireAuth.parse(requireAuth),
                Optional.empty(), source, REQUEST);
    }

    private static Authenticator auth(String token) {
        return auth(r -> CompletableFuture.completedFuture(token), null);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static Reason reasonOf(Runnable r) {
        AuthenticationException e = assertThrows(AuthenticationException.class, r::run);
        assertFalse(e.getMessage().contains(TOKEN) || e.toString().contains("secret-part"), e.toString());
        return e.reason();
    }

    @Test
    void theInitialResponseIsTheRfc7628OneAndOkCompletesIt() {
        Authenticator a = auth(TOKEN);
        SaslInitial initial = a.onSaslRequest(OAUTH);
        assertEquals("OAUTHBEARER", initial.mechanism());
        assertArrayEquals(ascii("n,,\u0001auth=Bearer " + TOKEN + "\u0001\u0001"), initial.initialResponse());
        a.onAuthenticationOk();
        assertTrue(a.isAuthenticated());
        assertEquals(Optional.of("OAUTHBEARER"), a.saslMechanism());
        assertFalse(a.isChannelBound());
        assertFalse(a.toString().contains("secret-part"), a.toString());
        assertFalse(initial.toString().contains("secret-part"), initial.toString());
    }

    @Test
    void theErrorResultIsAnsweredWithKvsepAndBecomesTheTypedRejection() {
        Authenticator a = auth(TOKEN);
        a.onSaslRequest(OAUTH);
        byte[] reply = a.onSaslContinue(ascii("{ \"status\": \"invalid_token\", \"openid-configuration\":"
                + " \"https://idp.example/.well-known/openid-configuration\", \"scope\": \"openid db\","
                + " \"extra\": {\"nested\": [1, 2.5e3, true, null, \"x\\\"y\"]} }"));
        assertArrayEquals(new byte[] {1}, reply);
        RuntimeException serverFatal = new RuntimeException("FATAL 28000: OAuth bearer authentication failed");
        AuthenticationException e = a.oauthRejection(serverFatal).orElseThrow();
        assertEquals(Reason.TOKEN_REJECTED, e.reason());
        assertEquals("openid db", e.oauthError().orElseThrow().scope());
        assertEquals("https://idp.example/.well-known/openid-configuration", e.oauthError().orElseThrow().openidConfiguration());
        assertEquals(serverFatal, e.getCause());
        assertTrue(e.getMessage().contains("\"alice\"") && e.getMessage().contains("invalid_token"), e.getMessage());
        assertFalse(e.getMessage().contains("secret-part"));
        // A server that says yes after saying no is lying somewhere.
        assertEquals(Reason.PROTOCOL_VIOLATION, reasonOf(a::onAuthenticationOk));
    }

    @Test
    void noRejectionWithoutAnErrorResult() {
        Authenticator a = auth(TOKEN);
        a.onSaslRequest(OAUTH);
        assertTrue(a.oauthRejection(new RuntimeException("pg_hba said no")).isEmpty());
        assertTrue(auth(TOKEN).oauthRejection(new RuntimeException()).isEmpty());
    }

    @Test
    void saslFinalAndASecondChallengeAreProtocolViolations() {
        Authenticator a = auth(TOKEN);
        a.onSaslRequest(OAUTH);
        assertEquals(Reason.PROTOCOL_VIOLATION, reasonOf(() -> a.onSaslFinal(ascii("v=abc"))));
        Authenticator b = auth(TOKEN);
        b.onSaslRequest(OAUTH);
        b.onSaslContinue(ascii("{\"status\":\"invalid_token\"}"));
        assertEquals(Reason.PROTOCOL_VIOLATION, reasonOf(() -> b.onSaslContinue(ascii("{\"status\":\"invalid_token\"}"))));
    }

    @Test
    void malformedOrHostileErrorResultsAreRefused() {
        String deep = "{\"a\":" + "[".repeat(10_000) + "]".repeat(10_000) + ",\"status\":\"x\"}";
        for (String json : List.of("[]", "\"status\"", "{\"status\": 401}", "{\"scope\":\"x\"}",
                "{\"status\":\"a\",\"status\":\"b\"}", "{\"status\":\"a\"} trailing", "{\"status\":\"a\"", deep,
                "{\"status\":\"a\\q\"}", "{\"status\":\"a\",}")) {
            Authenticator a = auth(TOKEN);
            a.onSaslRequest(OAUTH);
            assertEquals(Reason.MALFORMED_SERVER_MESSAGE, reasonOf(() -> a.onSaslContinue(ascii(json))), json);
        }
        Authenticator a = auth(TOKEN);
        a.onSaslRequest(OAUTH);
        byte[] badUtf8 = {'{', '"', 's', 't', 'a', 't', 'u', 's', '"', ':', '"', (byte) 0xC3, '"', '}'};
        assertEquals(Reason.MALFORMED_SERVER_MESSAGE, reasonOf(() -> a.onSaslContinue(badUtf8)));
    }

    @Test
    void tokensThatAreNotB64TokensAreNeverSent() {
        for (String t : List.of(TOKEN + " ", "Bearer " + TOKEN, TOKEN + "\n", "=" + TOKEN, TOKEN + "=x", "tok\u00e9n")) {
            assertEquals(Reason.INVALID_TOKEN, reasonOf(() -> auth(t).onSaslRequest(OAUTH)), t);
        }
        assertEquals(Reason.NO_TOKEN, reasonOf(() -> auth("").onSaslRequest(OAUTH)));
        assertEquals(Reason.NO_TOKEN, reasonOf(() -> auth((String) null).onSaslRequest(OAUTH)));
        assertEquals(Reason.INVALID_TOKEN, reasonOf(() -> auth("a".repeat(60_001)).onSaslRequest(OAUTH)));
    }

    @Test
    void theSourceIsAskedOnceWithTheRequestAndItsFailureIsKeptAsTheCause() {
        List<OAuthBearerTokenSource.Request> seen = new java.util.ArrayList<>();
        Authenticator a = auth(r -> {
            seen.add(r);
            return CompletableFuture.failedFuture(new IllegalStateException("idp down, client_secret=" + TOKEN));
        }, null);
        CompletableFuture<SaslInitial> f = a.onSaslRequestAsync(OAUTH).toCompletableFuture();
        CompletionException ce = assertThrows(CompletionException.class, f::join);
        AuthenticationException e = (AuthenticationException) ce.getCause();
        assertEquals(Reason.TOKEN_SOURCE_FAILED, e.reason());
        assertFalse(e.getMessage().contains("secret-part"), "the source's own message is left in the cause");
        assertEquals(IllegalStateException.class, e.getCause().getClass());
        assertEquals(List.of(REQUEST), seen);
        assertEquals(Reason.PROTOCOL_VIOLATION, reasonOf(a::onAuthenticationOk));
        // A source that throws instead of failing its stage.
        assertEquals(Reason.TOKEN_SOURCE_FAILED, reasonOf(() -> auth(r -> {
            throw new IllegalStateException("boom");
        }, null).onSaslRequest(OAUTH)));
        assertEquals(Reason.NO_TOKEN, reasonOf(() -> auth(null, null).onSaslRequest(OAUTH)));
    }

    @Test
    void requireAuthAndChannelBindingDecideBeforeTheSourceIsAsked() {
        int[] asked = {0};
        OAuthBearerTokenSource counting = r -> {
            asked[0]++;
            return CompletableFuture.completedFuture(TOKEN);
        };
        for (String policy : List.of("scram-sha-256", "!oauth", "password")) {
            assertEquals(Reason.POLICY_REFUSED, reasonOf(() -> auth(counting, policy).onSaslRequest(OAUTH)), policy);
        }
        assertEquals(Reason.POLICY_REFUSED,
                reasonOf(() -> auth(counting, "oauth").onSaslRequest(List.of("SCRAM-SHA-256"))));
        Authenticator requireCb = new Authenticator("alice", PasswordSource.none(), ChannelBindingMode.REQUIRE,
                RequireAuth.any(), Optional.empty(), counting, REQUEST);
        assertEquals(Reason.CHANNEL_BINDING_REQUIRED, reasonOf(() -> requireCb.onSaslRequest(OAUTH)));
        assertEquals(0, asked[0]);
        Authenticator allowed = auth(counting, "oauth,scram-sha-256");
        allowed.onSaslRequest(OAUTH);
        allowed.onAuthenticationOk();
        assertEquals(1, asked[0]);
        // SCRAM still wins when both are offered (libpq's order), so the source is not asked.
        Authenticator both = new Authenticator("alice", PasswordSource.of("pw"), ChannelBindingMode.PREFER,
                RequireAuth.any(), Optional.empty(), counting, REQUEST);
        assertEquals("SCRAM-SHA-256", both.onSaslRequest(List.of("OAUTHBEARER", "SCRAM-SHA-256")).mechanism());
        assertEquals(1, asked[0]);
    }
}
