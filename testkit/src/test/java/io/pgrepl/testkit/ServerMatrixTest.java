package io.pgrepl.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import javax.net.ssl.SSLException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Named;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every major of the matrix with SCRAM, TLS and client certificates (the set-up with the most
 * per-major settings), and every other auth method on the newest and the oldest major (their
 * pg_hba lines and TLS files do not vary with the major in between): each server is started,
 * reached with a raw startup handshake, closed, and shown to leave nothing behind.
 */
class ServerMatrixTest {
    private static final List<String> TIMINGS = new ArrayList<>();
    private static long totalNanos;

    static Stream<Arguments> servers() {
        List<Arguments> all = new ArrayList<>();
        List<Integer> majors = PgVersions.matrix().stream().sorted().toList();
        for (int major : majors) {
            boolean end = major == majors.get(0) || major == majors.get(majors.size() - 1);
            for (AuthMethod auth : AuthMethod.values()) {
                if (end || auth == AuthMethod.SCRAM_SHA_256) all.add(Arguments.of(major, Named.of(auth.toString(), auth)));
            }
        }
        return all.stream();
    }

    @ParameterizedTest(name = "PostgreSQL {0}, {1}")
    @MethodSource("servers")
    void startProbeAndClose(int major, AuthMethod auth) throws Exception {
        long began = System.nanoTime();
        PgServer server = PgServer.builder().version(major).auth(auth).tls(tlsFor(auth)).start();
        long started = System.nanoTime();
        Leftovers leftovers;
        try {
            assertEquals(major, server.majorVersion());
            assertTrue(server.version().startsWith(major + "."), server.version());
            assertEquals("127.0.0.1", server.host());
            switch (auth) {
                case TRUST -> checkTrust(server);
                case PASSWORD -> checkPassword(server);
                case MD5 -> checkMd5HostsslOnly(server);
                case SCRAM_SHA_256 -> checkScramWithClientCerts(server);
            }
            leftovers = Leftovers.before(server);
        } finally {
            server.close();
        }
        leftovers.assertGone();
        long ended = System.nanoTime();
        synchronized (TIMINGS) {
            totalNanos += ended - began;
            TIMINGS.add(String.format("PG %d %-13s start %4d ms, whole %4d ms", major, auth,
                    (started - began) / 1_000_000, (ended - began) / 1_000_000));
        }
    }

    @AfterAll
    static void report() {
        TIMINGS.forEach(t -> System.out.println("[timing] " + t));
        System.out.printf("[timing] %d servers, %d ms in all%n", TIMINGS.size(), totalNanos / 1_000_000);
    }

    private static TlsOptions tlsFor(AuthMethod auth) {
        return switch (auth) {
            case TRUST -> null;
            case PASSWORD -> TlsOptions.rsaSha256();
            case MD5 -> TlsOptions.ecdsaSha384().hostsslOnly(true);
            case SCRAM_SHA_256 -> TlsOptions.rsaSha256().clientCertificates(true);
        };
    }

    /** Trust: no password asked; roles exist with the right REPLICATION attribute. */
    private static void checkTrust(PgServer server) throws Exception {
        WireProbe.Result su = WireProbe.as(server.superuser()).run(server);
        assertEquals(List.of(WireProbe.AUTH_OK), su.authRequests());
        assertTrue(su.readyForQuery());
        assertEquals(server.version(), su.parameters().get("server_version").split(" ")[0]);
        assertEquals("on", su.parameters().get("is_superuser"));

        WireProbe.Result physical = WireProbe.as(server.replicationUser()).replication("true").run(server);
        assertTrue(physical.authenticated(), () -> "repl_user physical: " + physical);
        WireProbe.Result logical = WireProbe.as(server.replicationUser()).replication("database").run(server);
        assertTrue(logical.authenticated(), () -> "repl_user logical: " + logical);
        WireProbe.Result plainRepl = WireProbe.as(server.plainUser()).replication("database").run(server);
        assertFalse(plainRepl.readyForQuery());
        assertTrue(List.of("42501", "28000").contains(plainRepl.sqlState()), () -> "plain_user walsender: "
                + plainRepl);
        WireProbe.Result plain = WireProbe.as(server.plainUser()).run(server);
        assertTrue(plain.authenticated());
        assertEquals("off", plain.parameters().get("is_superuser"));
        assertEquals('N', WireProbe.sslAnswer(server), "no TLS configured");
    }

    /** Cleartext password, plaintext and over TLS (RSA, SHA256withRSA); wrong passwords fail. */
    private static void checkPassword(PgServer server) throws Exception {
        for (PgUser user : List.of(server.superuser(), server.replicationUser(), server.plainUser())) {
            WireProbe.Result r = WireProbe.as(user).run(server);
            assertEquals(List.of(WireProbe.AUTH_CLEARTEXT, WireProbe.AUTH_OK), r.authRequests(), user.name());
            assertTrue(r.readyForQuery());
        }
        WireProbe.Result wrong = WireProbe.as(server.replicationUser()).password("nope").run(server);
        assertEquals("28P01", wrong.sqlState());

        ServerTls tls = server.tls().orElseThrow();
        WireProbe.Result overTls = WireProbe.as(server.replicationUser()).replication("true").tls(tls).run(server);
        assertTrue(overTls.authenticated(), () -> "over TLS: " + overTls);
        assertEquals(tls.serverCertificate(), overTls.peerCertificate());
        assertEquals("SHA256withRSA", tls.serverCertificate().getSigAlgName());
    }

    /** MD5-stored passwords, hostssl-only, EC P-384 / SHA384withECDSA. */
    private static void checkMd5HostsslOnly(PgServer server) throws Exception {
        ServerTls tls = server.tls().orElseThrow();
        assertEquals("SHA384withECDSA", tls.serverCertificate().getSigAlgName());
        assertEquals("EC", tls.serverCertificate().getPublicKey().getAlgorithm());

        WireProbe.Result plaintext = WireProbe.as(server.superuser()).run(server);
        assertEquals("28000", plaintext.sqlState(), () -> "plaintext must be rejected: " + plaintext);
        assertTrue(plaintext.message().contains("no encryption") || plaintext.message().contains("SSL off"),
                plaintext.message());

        WireProbe.Result md5 = WireProbe.as(server.replicationUser()).replication("database").tls(tls).run(server);
        assertEquals(List.of(WireProbe.AUTH_MD5, WireProbe.AUTH_OK), md5.authRequests(), () -> md5.toString());
        assertTrue(md5.readyForQuery());
        WireProbe.Result wrong = WireProbe.as(server.superuser()).password("nope").tls(tls).run(server);
        assertEquals("28P01", wrong.sqlState());
    }

    /** SCRAM without TLS; over TLS, client-certificate authentication. */
    private static void checkScramWithClientCerts(PgServer server) throws Exception {
        WireProbe.Result scram = WireProbe.as(server.replicationUser()).run(server);
        assertEquals(List.of(WireProbe.AUTH_SASL), scram.authRequests());
        assertTrue(scram.saslMechanisms().contains("SCRAM-SHA-256"), scram.saslMechanisms().toString());

        ServerTls tls = server.tls().orElseThrow();
        WireProbe.Result cert = WireProbe.as(server.replicationUser()).replication("true").tls(tls)
                .clientCert(tls.clientCert(server.replicationUser())).run(server);
        assertEquals(List.of(WireProbe.AUTH_OK), cert.authRequests(), () -> "cert auth: " + cert);
        assertTrue(cert.readyForQuery());

        // A certificate whose CN names another role does not authenticate this one.
        WireProbe.Result otherCn = WireProbe.as(server.superuser()).tls(tls)
                .clientCert(tls.clientCert(server.plainUser())).run(server);
        assertEquals("28000", otherCn.sqlState(), () -> otherCn.toString());

        // Without a certificate, TLS connections cannot authenticate.
        try {
            WireProbe.Result none = WireProbe.as(server.replicationUser()).tls(tls).run(server);
            assertFalse(none.readyForQuery(), () -> none.toString());
        } catch (SSLException expected) {
            // some versions reject already in the handshake
        }
        assertThrows(IllegalArgumentException.class, () -> PgServer.builder().version(10)
                .tls(TlsOptions.rsaSha256().clientCertMode(ClientCertMode.VERIFY_FULL)).build());
    }
}
