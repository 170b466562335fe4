package io.pgrepl.it.connect;

import static io.pgrepl.it.connect.Await.await;
import static io.pgrepl.it.connect.Await.failure;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgClientException;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.testkit.AuthMethod;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.PgVersions;
import io.pgrepl.testkit.ServerTls;
import io.pgrepl.testkit.TlsOptions;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import org.bouncycastle.openssl.PKCS8Generator;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8EncryptorBuilder;
import org.bouncycastle.operator.OutputEncryptor;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Client-certificate authentication ({@code hostssl ... cert}) with the kit's certificate and its
 * key re-encoded three ways: encrypted PKCS#8 (needs sslpassword), PKCS#1 (refused with the
 * openssl command that converts it), and plain PKCS#8 with a superfluous sslpassword (ignored).
 */
class ClientKeyTest {
    private static final String PASSPHRASE = "key-Passphrase-42";
    private static PgServer server;
    private static ServerTls.ClientCert client;
    private static PrivateKey key;

    @BeforeAll
    static void start() throws Exception {
        server = PgServer.builder().version(PgVersions.defaultVersion()).auth(AuthMethod.SCRAM_SHA_256)
                .tls(TlsOptions.rsaSha256().clientCertificates(true).hostsslOnly(true)).start();
        client = server.tls().orElseThrow().clientCert(server.superuser());
        String pem = Files.readString(client.keyFile());
        key = KeyFactory.getInstance("RSA").generatePrivate(
                new PKCS8EncodedKeySpec(Base64.getMimeDecoder().decode(pem.replaceAll("-----[A-Z ]+-----", ""))));
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
    }

    private static ConnectionConfig.Builder cfg(Path keyFile) {
        // No password: the certificate alone authenticates.
        return ConnectionConfig.builder().host(server.host()).port(server.port()).user(server.superuser().name())
                .database("postgres").sslMode(SslMode.REQUIRE).sslCert(client.certFile()).sslKey(keyFile);
    }

    private static Path write(Path dir, String name, Object pemObject) throws Exception {
        StringWriter w = new StringWriter();
        try (JcaPEMWriter pw = new JcaPEMWriter(w)) {
            pw.writeObject(pemObject);
        }
        Path f = dir.resolve(name);
        Files.writeString(f, w.toString());
        return f;
    }

    @Test
    void encryptedPkcs8KeyWithSslpassword(@TempDir Path dir) throws Exception {
        OutputEncryptor enc = new JceOpenSSLPKCS8EncryptorBuilder(PKCS8Generator.AES_256_CBC)
                .setPRF(PKCS8Generator.PRF_HMACSHA256) // what `openssl pkcs8 -topk8` writes today
                .setProvider(new org.bouncycastle.jce.provider.BouncyCastleProvider())
                .setPassword(PASSPHRASE.toCharArray()).build();
        Path encrypted = write(dir, "client.key.enc", new JcaPKCS8Generator(key, enc).generate());
        assertTrue(Files.readString(encrypted).startsWith("-----BEGIN ENCRYPTED PRIVATE KEY-----"));

        try (PgConnection c = await(PgConnection.connect(cfg(encrypted).sslPassword(PASSPHRASE).build()))) {
            assertEquals(server.superuser().name(), await(c.query("SELECT current_user")).singleRow().get(0));
            assertEquals("t", await(c.query("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")).singleRow().get(0));
        }
        // The same through the libpq keywords.
        String url = "host=" + server.host() + " port=" + server.port() + " user=" + server.superuser().name()
                + " dbname=postgres sslmode=require sslcert=" + client.certFile() + " sslkey=" + encrypted
                + " sslpassword=" + PASSPHRASE;
        try (PgConnection c = await(PgConnection.connect(url))) {
            assertTrue(c.isTls());
        }

        PgClientException missing = assertInstanceOf(PgClientException.class, failure(PgConnection.connect(cfg(encrypted).build())));
        assertEquals(PgClientException.Kind.TLS, missing.kind());
        assertTrue(missing.getMessage().contains("is encrypted: give its passphrase with sslpassword"), missing.getMessage());

        PgClientException wrong = assertInstanceOf(PgClientException.class,
                failure(PgConnection.connect(cfg(encrypted).sslPassword("not-" + PASSPHRASE).build())));
        assertEquals(PgClientException.Kind.TLS, wrong.kind());
        assertTrue(wrong.getMessage().contains("could not decrypt client key"), wrong.getMessage());
        for (Throwable t = wrong; t != null; t = t.getCause()) {
            assertFalse(String.valueOf(t.getMessage()).contains(PASSPHRASE), t.toString());
        }
        assertFalse(cfg(encrypted).sslPassword(PASSPHRASE).build().toString().contains(PASSPHRASE));
    }

    @Test
    void pkcs1KeyIsRefusedWithTheConversionCommand(@TempDir Path dir) throws Exception {
        Path pkcs1 = write(dir, "client.key.rsa", key); // JcaPEMWriter writes an RSA key as PKCS#1
        assertTrue(Files.readString(pkcs1).startsWith("-----BEGIN RSA PRIVATE KEY-----"));
        PgClientException e = assertInstanceOf(PgClientException.class, failure(PgConnection.connect(cfg(pkcs1).build())));
        assertEquals(PgClientException.Kind.TLS, e.kind());
        assertTrue(e.getMessage().contains("openssl pkcs8 -topk8"), e.getMessage());
    }

    @Test
    void unencryptedKeyIgnoresSslpassword() throws Exception {
        try (PgConnection c = await(PgConnection.connect(cfg(client.keyFile()).sslPassword("unused").build()))) {
            assertTrue(c.isTls());
        }
    }
}
