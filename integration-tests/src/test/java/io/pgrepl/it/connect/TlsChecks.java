package io.pgrepl.it.connect;

import static io.pgrepl.it.connect.Await.await;
import static io.pgrepl.it.connect.Await.failure;
import static io.pgrepl.it.connect.ConnectMatrixTest.cfg;
import static io.pgrepl.it.connect.ConnectMatrixTest.test;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.PgClientException;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.SslNegotiation;
import io.pgrepl.testkit.PgServer;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.function.Supplier;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.DynamicNode;

/**
 * Certificate verification and direct SSL against a real server whose certificate has
 * SAN DNS:localhost and IP:127.0.0.1, signed by the kit's CA.
 */
final class TlsChecks {
    private TlsChecks() {}

    static List<DynamicNode> tests(int version, Supplier<PgServer> server) {
        return List.of(
                test("verify-full: right CA, host localhost and 127.0.0.1", () -> {
                    PgServer s = server.get();
                    Path ca = s.tls().orElseThrow().caCertFile();
                    for (String host : List.of("localhost", "127.0.0.1")) {
                        try (PgConnection c = await(PgConnection.connect(cfg(s, s.superuser(), SslMode.VERIFY_FULL)
                                .host(host).sslRootCert(ca).build()))) {
                            assertTrue(c.isTls());
                        }
                    }
                }),
                test("verify-full: wrong host name refused; verify-ca accepts it", () -> {
                    PgServer s = server.get();
                    Path ca = s.tls().orElseThrow().caCertFile();
                    // hostaddr connects to the server, host names what the certificate must match.
                    var bad = cfg(s, s.superuser(), SslMode.VERIFY_FULL).host("db.example.com").hostAddress(s.host()).sslRootCert(ca);
                    PgClientException e = assertInstanceOf(PgClientException.class, failure(PgConnection.connect(bad.build())));
                    assertEquals(PgClientException.Kind.TLS, e.kind());
                    assertTrue(e.getMessage().contains("does not match host name"), e.getMessage());
                    try (PgConnection c = await(PgConnection.connect(bad.sslMode(SslMode.VERIFY_CA).build()))) {
                        assertTrue(c.isTls());
                    }
                }),
                test("verify-ca and require-with-root-cert: untrusted CA refused", () -> {
                    PgServer s = server.get();
                    Path other = otherCa();
                    for (SslMode mode : List.of(SslMode.VERIFY_CA, SslMode.REQUIRE)) {
                        Throwable t = failure(PgConnection.connect(cfg(s, s.superuser(), mode).sslRootCert(other).build()));
                        PgClientException e = assertInstanceOf(PgClientException.class, t, () -> mode + ": " + t);
                        assertEquals(PgClientException.Kind.TLS, e.kind());
                    }
                }),
                test("direct SSL: works on 17+, fails cleanly before", () -> {
                    PgServer s = server.get();
                    var stage = PgConnection.connect(cfg(s, s.superuser(), SslMode.VERIFY_FULL).host("localhost")
                            .sslRootCert(s.tls().orElseThrow().caCertFile()).sslNegotiation(SslNegotiation.DIRECT).build());
                    if (version >= 17) {
                        try (PgConnection c = await(stage)) {
                            assertTrue(c.isTls());
                            assertEquals("1", await(c.query("SELECT 1")).singleRow().get(0));
                        }
                    } else {
                        PgClientException e = assertInstanceOf(PgClientException.class, failure(stage));
                        assertEquals(PgClientException.Kind.TLS, e.kind());
                    }
                }),
                test("cancel a running query (CancelRequest over TLS)", () -> {
                    PgServer s = server.get();
                    try (PgConnection c = await(PgConnection.connect(cfg(s, s.superuser(), SslMode.REQUIRE).build()))) {
                        // Polls pg_stat_activity until the query runs, then cancels: no race with a sleep.
                        ProtocolNegotiationTest.cancelRunningQuery(c);
                    }
                }));
    }

    private static Path otherCa() throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(256);
        KeyPair kp = g.generateKeyPair();
        X500Name name = new X500Name("CN=untrusted test CA");
        long now = System.currentTimeMillis();
        var builder = new JcaX509v3CertificateBuilder(name, BigInteger.valueOf(now), new Date(now - 60_000),
                new Date(now + 86_400_000L), name, kp.getPublic())
                .addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
        X509Certificate cert = new JcaX509CertificateConverter()
                .getCertificate(builder.build(new JcaContentSignerBuilder("SHA256withECDSA").build(kp.getPrivate())));
        Path f = Files.createTempFile("untrusted-ca", ".crt");
        f.toFile().deleteOnExit();
        Files.writeString(f, "-----BEGIN CERTIFICATE-----\n" + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(cert.getEncoded())
                + "\n-----END CERTIFICATE-----\n");
        return f;
    }
}
