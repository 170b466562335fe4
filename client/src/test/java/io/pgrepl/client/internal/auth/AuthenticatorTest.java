package io.pgrepl.client.internal.auth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.auth.AuthRequestKind;
import io.pgrepl.client.auth.AuthenticationException;
import io.pgrepl.client.auth.AuthenticationException.Reason;
import io.pgrepl.client.auth.ChannelBindingMode;
import io.pgrepl.client.auth.PasswordSource;
import io.pgrepl.client.auth.RequireAuth;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** Drives {@link Authenticator} against {@link FakeScramServer} (a fake: see its javadoc for why). */
class AuthenticatorTest {
    private static final String PASSWORD = "correct horse battery staple";
    private static final List<String> PLAIN = List.of(ScramSha256Client.MECHANISM);
    private static final List<String> BOTH = List.of(ScramSha256Client.MECHANISM_PLUS, ScramSha256Client.MECHANISM);
    private static X509Certificate serverCert;
    private static X509Certificate otherCert;
    private static byte[] serverCertHash;

    /** Counts how often the password was handed out: policy refusals must happen before that. */
    private final AtomicInteger passwordReads = new AtomicInteger();
    private final PasswordSource passwords = () -> {
        passwordReads.incrementAndGet();
        return Optional.of(PASSWORD.getBytes(StandardCharsets.UTF_8));
    };

    @BeforeAll
    static void certificates() throws Exception {
        serverCert = TestCertificates.rsa("SHA256withRSA");
        otherCert = TestCertificates.rsa("SHA256withRSA");
        // Computed here with MessageDigest, not with the class under test.
        serverCertHash = MessageDigest.getInstance("SHA-256").digest(serverCert.getEncoded());
    }

    private Authenticator auth(ChannelBindingMode mode, String requireAuth, X509Certificate tlsCert) {
        return new Authenticator("alice", passwords, mode, RequireAuth.parse(requireAuth), Optional.ofNullable(tlsCert));
    }

    private static FakeScramServer server(List<String> advertised, byte[] certHash) {
        return new FakeScramServer(PASSWORD, "saltsaltsaltsalt".getBytes(StandardCharsets.US_ASCII), 4096,
                advertised, certHash);
    }

    /** Runs a full exchange and returns the client-first the fake server saw. */
    private static String exchange(Authenticator auth, FakeScramServer server) {
        SaslInitial initial = auth.onSaslRequest(server.advertised);
        String serverFirst = server.serverFirst(initial);
        byte[] clientFinal = auth.onSaslContinue(serverFirst.getBytes(StandardCharsets.US_ASCII));
        auth.onSaslFinal(server.serverFinal(clientFinal).getBytes(StandardCharsets.US_ASCII));
        auth.onAuthenticationOk();
        return server.lastClientFirst;
    }

    private static Reason reasonOf(Executable step) {
        return assertThrows(AuthenticationException.class, step).reason();
    }

    @Test
    void scramWithoutTlsUsesFlagN() {
        Authenticator auth = auth(ChannelBindingMode.PREFER, null, null);
        String clientFirst = exchange(auth, server(PLAIN, null));
        assertTrue(clientFirst.startsWith("n,,n=,r="), clientFirst);
        assertTrue(auth.isAuthenticated());
        assertFalse(auth.isChannelBound());
        assertEquals(Optional.of("SCRAM-SHA-256"), auth.saslMechanism());
    }

    @Test
    void scramPlusWithCorrectBindingDataIsAccepted() {
        Authenticator auth = auth(ChannelBindingMode.REQUIRE, null, serverCert);
        FakeScramServer server = server(BOTH, serverCertHash);
        String clientFirst = exchange(auth, server);
        assertTrue(clientFirst.startsWith("p=tls-server-end-point,,n=,r="), clientFirst);
        assertTrue(auth.isChannelBound());
        assertEquals(Optional.of("SCRAM-SHA-256-PLUS"), auth.saslMechanism());
    }

    @Test
    void scramPlusBoundToAnotherCertificateFailsAtTheServer() {
        // A man in the middle presents its own certificate: the binding data no longer matches.
        Authenticator auth = auth(ChannelBindingMode.PREFER, null, otherCert);
        FakeScramServer server = server(BOTH, serverCertHash);
        SaslInitial initial = auth.onSaslRequest(BOTH);
        byte[] clientFinal = auth.onSaslContinue(server.serverFirst(initial).getBytes(StandardCharsets.US_ASCII));
        FakeScramServer.Refused refused = assertThrows(FakeScramServer.Refused.class,
                () -> server.serverFinal(clientFinal));
        assertTrue(refused.getMessage().contains("channel binding check failed"));
    }

    @Test
    void tlsWithoutPlusOfferedSendsY() {
        Authenticator auth = auth(ChannelBindingMode.PREFER, null, serverCert);
        FakeScramServer server = server(PLAIN, null);
        String clientFirst = exchange(auth, server);
        assertTrue(clientFirst.startsWith("y,,"), clientFirst);
        assertTrue(server.lastClientFinal.startsWith("c=eSws,"), server.lastClientFinal);
        assertFalse(auth.isChannelBound());
    }

    @Test
    void neverSendsYWhenPlusWasOffered() {
        // The downgrade trap: with binding disabled the client must say 'n', not 'y'.
        Authenticator auth = auth(ChannelBindingMode.DISABLE, null, serverCert);
        FakeScramServer server = server(BOTH, serverCertHash);
        String clientFirst = exchange(auth, server);
        assertTrue(clientFirst.startsWith("n,,"), clientFirst);
        assertEquals(Optional.of("SCRAM-SHA-256"), auth.saslMechanism());
        assertTrue(server.lastClientFinal.startsWith("c=biws,"));
    }

    @Test
    void fakeServerRejectsYWhilePlusAdvertised() {
        // Checks the fake enforces the server's downgrade rule, so the test above can fail.
        FakeScramServer server = server(BOTH, serverCertHash);
        SaslInitial forged = new SaslInitial("SCRAM-SHA-256", "y,,n=,r=abcdefabcdefabcdefabcdef"
                .getBytes(StandardCharsets.US_ASCII));
        assertThrows(FakeScramServer.Refused.class, () -> server.serverFirst(forged));
    }

    @Test
    void ed25519CertificateFallsBackToNUnderPreferAndFailsUnderRequire() throws Exception {
        X509Certificate ed = TestCertificates.ed25519();
        Authenticator prefer = auth(ChannelBindingMode.PREFER, null, ed);
        String clientFirst = exchange(prefer, server(BOTH, null));
        assertTrue(clientFirst.startsWith("n,,"), clientFirst);

        Authenticator require = auth(ChannelBindingMode.REQUIRE, null, ed);
        assertEquals(Reason.CHANNEL_BINDING_IMPOSSIBLE, reasonOf(() -> require.onSaslRequest(BOTH)));
        assertEquals(1, passwordReads.get(), "only the PREFER exchange read the password");
    }

    @Test
    void forgedServerSignatureIsRejectedAndOkRefused() {
        Authenticator auth = auth(ChannelBindingMode.PREFER, null, null);
        FakeScramServer server = server(PLAIN, null);
        SaslInitial initial = auth.onSaslRequest(PLAIN);
        byte[] clientFinal = auth.onSaslContinue(server.serverFirst(initial).getBytes(StandardCharsets.US_ASCII));
        server.serverFinal(clientFinal);
        AuthenticationException e = assertThrows(AuthenticationException.class, () -> auth.onSaslFinal(
                FakeScramServer.forgedServerFinal().getBytes(StandardCharsets.US_ASCII)));
        assertEquals(Reason.SERVER_SIGNATURE_INVALID, e.reason());
        assertFalse(e.getMessage().contains(PASSWORD));
        assertThrows(AuthenticationException.class, auth::onAuthenticationOk);
        assertFalse(auth.isAuthenticated());
    }

    @Test
    void okBeforeServerSignatureIsRefused() {
        Authenticator auth = auth(ChannelBindingMode.PREFER, null, null);
        FakeScramServer server = server(PLAIN, null);
        SaslInitial initial = auth.onSaslRequest(PLAIN);
        auth.onSaslContinue(server.serverFirst(initial).getBytes(StandardCharsets.US_ASCII));
        assertEquals(Reason.PROTOCOL_VIOLATION, reasonOf(auth::onAuthenticationOk));
    }

    @Test
    void tamperedNonceFromServerIsRejected() {
        Authenticator auth = auth(ChannelBindingMode.PREFER, null, null);
        FakeScramServer server = server(PLAIN, null);
        String honest = server.serverFirst(auth.onSaslRequest(PLAIN));
        String tampered = "r=AAAA" + honest.substring(6);
        assertEquals(Reason.NONCE_MISMATCH,
                reasonOf(() -> auth.onSaslContinue(tampered.getBytes(StandardCharsets.US_ASCII))));
    }

    @Test
    void serverErrorInFinalMessageIsSurfaced() {
        Authenticator auth = auth(ChannelBindingMode.PREFER, null, null);
        FakeScramServer server = server(PLAIN, null);
        auth.onSaslContinue(server.serverFirst(auth.onSaslRequest(PLAIN)).getBytes(StandardCharsets.US_ASCII));
        assertEquals(Reason.SERVER_ERROR,
                reasonOf(() -> auth.onSaslFinal("e=other-error".getBytes(StandardCharsets.US_ASCII))));
    }

    @Test
    void channelBindingRequireRefusesBeforeAnySecret() {
        assertEquals(Reason.CHANNEL_BINDING_REQUIRED,
                reasonOf(() -> auth(ChannelBindingMode.REQUIRE, null, null).onSaslRequest(PLAIN)));
        assertEquals(Reason.CHANNEL_BINDING_REQUIRED,
                reasonOf(() -> auth(ChannelBindingMode.REQUIRE, null, serverCert).onSaslRequest(PLAIN)));
        assertEquals(Reason.CHANNEL_BINDING_REQUIRED,
                reasonOf(() -> auth(ChannelBindingMode.REQUIRE, null, serverCert).onCleartextRequest()));
        assertEquals(Reason.CHANNEL_BINDING_REQUIRED,
                reasonOf(() -> auth(ChannelBindingMode.REQUIRE, null, serverCert).onMd5Request(new byte[4])));
        assertEquals(Reason.CHANNEL_BINDING_REQUIRED,
                reasonOf(() -> auth(ChannelBindingMode.REQUIRE, null, serverCert).onAuthenticationOk()));
        assertEquals(Reason.CHANNEL_BINDING_REQUIRED, reasonOf(
                () -> auth(ChannelBindingMode.REQUIRE, null, serverCert).onUnsupportedRequest(AuthRequestKind.GSS)));
        assertEquals(0, passwordReads.get());
    }

    @Test
    void plusOfferedWithoutTlsIsRefused() {
        assertEquals(Reason.CHANNEL_BINDING_WITHOUT_TLS,
                reasonOf(() -> auth(ChannelBindingMode.PREFER, null, null).onSaslRequest(BOTH)));
        assertEquals(0, passwordReads.get());
    }

    @Test
    void unknownMechanismsOnly() {
        assertEquals(Reason.UNSUPPORTED_MECHANISM, reasonOf(
                () -> auth(ChannelBindingMode.PREFER, null, null).onSaslRequest(List.of("GS2-KRB5", "X-NEW"))));
        // OAUTHBEARER is known, but this authenticator has no token source.
        assertEquals(Reason.NO_TOKEN, reasonOf(
                () -> auth(ChannelBindingMode.PREFER, null, null).onSaslRequest(List.of("OAUTHBEARER"))));
    }

    @Test
    void cleartextAndMd5Answers() {
        assertArrayEquals(PASSWORD.getBytes(StandardCharsets.UTF_8),
                auth(ChannelBindingMode.PREFER, null, null).onCleartextRequest());
        Authenticator md5 = new Authenticator("postgres", PasswordSource.of("secret"), ChannelBindingMode.PREFER,
                RequireAuth.any(), Optional.empty());
        // Independently computed: md5(md5("secretpostgres").hex ‖ 01 02 03 04).
        assertEquals("md5bb41a296aab6baccb36ff243a562abff",
                new String(md5.onMd5Request(new byte[] {1, 2, 3, 4}), StandardCharsets.US_ASCII));
        md5.onAuthenticationOk();
        assertTrue(md5.isAuthenticated());
    }

    @Test
    void trustIsAcceptedWithoutPolicy() {
        Authenticator auth = auth(ChannelBindingMode.PREFER, null, serverCert);
        auth.onAuthenticationOk();
        assertTrue(auth.isAuthenticated());
        assertEquals(0, passwordReads.get());
    }

    @Test
    void requireAuthRefusesBeforeSendingPassword() {
        assertEquals(Reason.POLICY_REFUSED,
                reasonOf(() -> auth(ChannelBindingMode.PREFER, "scram-sha-256", null).onCleartextRequest()));
        assertEquals(Reason.POLICY_REFUSED,
                reasonOf(() -> auth(ChannelBindingMode.PREFER, "scram-sha-256", null).onMd5Request(new byte[4])));
        assertEquals(Reason.POLICY_REFUSED,
                reasonOf(() -> auth(ChannelBindingMode.PREFER, "md5,password", null).onSaslRequest(PLAIN)));
        assertEquals(Reason.POLICY_REFUSED,
                reasonOf(() -> auth(ChannelBindingMode.PREFER, "!password", null).onCleartextRequest()));
        assertEquals(Reason.POLICY_REFUSED,
                reasonOf(() -> auth(ChannelBindingMode.PREFER, "none", null).onSaslRequest(PLAIN)));
        assertEquals(0, passwordReads.get());
        auth(ChannelBindingMode.PREFER, "!password", null).onMd5Request(new byte[4]);
        assertEquals(1, passwordReads.get());
    }

    @Test
    void requireAuthJudgesAuthenticationOk() {
        assertEquals(Reason.POLICY_REFUSED,
                reasonOf(() -> auth(ChannelBindingMode.PREFER, "scram-sha-256", null).onAuthenticationOk()));
        assertEquals(Reason.POLICY_REFUSED,
                reasonOf(() -> auth(ChannelBindingMode.PREFER, "!none", null).onAuthenticationOk()));
        auth(ChannelBindingMode.PREFER, "none", null).onAuthenticationOk();
        auth(ChannelBindingMode.PREFER, "scram-sha-256,none", null).onAuthenticationOk();
        auth(ChannelBindingMode.PREFER, "!password", null).onAuthenticationOk();
        Authenticator scram = auth(ChannelBindingMode.PREFER, "scram-sha-256", null);
        exchange(scram, server(PLAIN, null));
        assertTrue(scram.isAuthenticated());
        Authenticator pw = auth(ChannelBindingMode.PREFER, "password", null);
        pw.onCleartextRequest();
        pw.onAuthenticationOk();
    }

    @Test
    void oauthOnlyPolicyDoesNotPickScram() {
        // libpq 18's answer: the policy, not the mechanism, is what refuses.
        assertEquals(Reason.POLICY_REFUSED,
                reasonOf(() -> auth(ChannelBindingMode.PREFER, "oauth", null).onSaslRequest(PLAIN)));
        assertEquals(0, passwordReads.get());
    }

    @Test
    void passwordProblems() {
        Authenticator none = new Authenticator("u", PasswordSource.none(), ChannelBindingMode.PREFER,
                RequireAuth.any(), Optional.empty());
        assertEquals(Reason.NO_PASSWORD, reasonOf(() -> none.onSaslRequest(PLAIN)));
        Authenticator empty = new Authenticator("u", PasswordSource.of(""), ChannelBindingMode.PREFER,
                RequireAuth.any(), Optional.empty());
        assertEquals(Reason.NO_PASSWORD, reasonOf(empty::onCleartextRequest));
        char[] longPw = new char[1025];
        Arrays.fill(longPw, 'x');
        Authenticator tooLong = new Authenticator("u", PasswordSource.of(new String(longPw)),
                ChannelBindingMode.PREFER, RequireAuth.any(), Optional.empty());
        AuthenticationException e = assertThrows(AuthenticationException.class, () -> tooLong.onSaslRequest(PLAIN));
        assertEquals(Reason.INVALID_PASSWORD, e.reason());
        assertFalse(e.getMessage().contains("xxxx"));
        Authenticator nul = new Authenticator("u", PasswordSource.of("a\0b"), ChannelBindingMode.PREFER,
                RequireAuth.any(), Optional.empty());
        assertEquals(Reason.INVALID_PASSWORD, reasonOf(nul::onCleartextRequest));
    }

    @Test
    void secondRequestAndFailedStateAreRefused() {
        Authenticator auth = auth(ChannelBindingMode.PREFER, null, null);
        auth.onCleartextRequest();
        assertEquals(Reason.PROTOCOL_VIOLATION, reasonOf(() -> auth.onSaslRequest(PLAIN)));
        assertEquals(Reason.PROTOCOL_VIOLATION, reasonOf(auth::onAuthenticationOk));
        Authenticator early = auth(ChannelBindingMode.PREFER, null, null);
        assertEquals(Reason.PROTOCOL_VIOLATION, reasonOf(() -> early.onSaslContinue(new byte[] {'r'})));
    }

    @Test
    void unsupportedMethods() {
        assertEquals(Reason.UNSUPPORTED_METHOD,
                reasonOf(() -> auth(ChannelBindingMode.PREFER, null, null).onUnsupportedRequest(AuthRequestKind.GSS)));
        assertEquals(Reason.POLICY_REFUSED, reasonOf(() -> auth(ChannelBindingMode.PREFER, "scram-sha-256", null)
                .onUnsupportedRequest(AuthRequestKind.SSPI)));
        assertEquals(AuthRequestKind.SASL_FINAL, AuthRequestKind.fromCode(12));
        assertEquals(AuthRequestKind.UNKNOWN, AuthRequestKind.fromCode(4));
    }

    @Test
    void toStringsHideThePassword() {
        Authenticator auth = auth(ChannelBindingMode.PREFER, null, null);
        auth.onSaslRequest(PLAIN);
        assertFalse(auth.toString().contains(PASSWORD));
        assertFalse(PasswordSource.of(PASSWORD).toString().contains(PASSWORD));
    }
}
