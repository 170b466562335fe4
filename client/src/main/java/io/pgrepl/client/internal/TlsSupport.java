package io.pgrepl.client.internal;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgClientException;
import io.pgrepl.client.config.SslMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * Builds the TLS client side for one connection with libpq's sslmode semantics:
 * <ul>
 *   <li>{@code prefer}/{@code require}: encrypt, trust any certificate, except that
 *       {@code require} with a root certificate file present behaves like {@code verify-ca}
 *       (libpq does this for backward compatibility);</li>
 *   <li>{@code verify-ca}: chain must lead to sslrootcert (or the JDK store for {@code system});</li>
 *   <li>{@code verify-full}: also the host name, checked by {@link HostnameVerifier} after the handshake.</li>
 * </ul>
 * ALPN offers exactly {@code postgresql}: mandatory for direct SSL, harmless on the SSLRequest
 * path (libpq 17 sends it too; older servers ignore the extension).
 */
public final class TlsSupport {
    public static final String ALPN_POSTGRESQL = "postgresql";

    private final SslContext context;
    private final SslMode effectiveMode;
    private final ConnectionConfig config;

    private TlsSupport(SslContext context, SslMode effectiveMode, ConnectionConfig config) {
        this.context = context;
        this.effectiveMode = effectiveMode;
        this.config = config;
    }

    public static TlsSupport create(ConnectionConfig config) {
        SslMode mode = config.sslMode();
        Path root = rootCertificate(config);
        boolean systemRoots = config.sslRootCert() != null && config.sslRootCert().toString().equals("system");
        if (systemRoots && mode.requiresEncryption() && mode != SslMode.VERIFY_FULL) {
            // libpq: sslrootcert=system forces verify-full, anything weaker would be pointless.
            throw new PgClientException(PgClientException.Kind.INVALID_ARGUMENT,
                    "weak sslmode \"" + mode.keyword() + "\" may not be used with sslrootcert=system (use \"verify-full\")");
        }
        if (mode == SslMode.REQUIRE && root != null) mode = SslMode.VERIFY_CA;
        try {
            SslContextBuilder b = SslContextBuilder.forClient()
                    .endpointIdentificationAlgorithm(null) // verify-full is checked by HostnameVerifier
                    .applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                            ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                            ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, ALPN_POSTGRESQL));
            if (mode == SslMode.VERIFY_CA || mode == SslMode.VERIFY_FULL) {
                if (systemRoots) {
                    b.trustManager((javax.net.ssl.TrustManagerFactory) null);
                } else if (root == null) {
                    throw new PgClientException(PgClientException.Kind.TLS, "root certificate file \""
                            + defaultFile("root.crt") + "\" does not exist; either provide the file, use the system's trusted roots"
                            + " with sslrootcert=system, or change sslmode to disable server certificate verification");
                } else {
                    b.trustManager(root.toFile());
                }
            } else {
                b.trustManager(InsecureTrustManagerFactory.INSTANCE);
            }
            Path cert = config.sslCert();
            Path key = config.sslKey();
            if (cert == null && Files.isReadable(defaultFile("postgresql.crt")) && Files.isReadable(defaultFile("postgresql.key"))) {
                cert = defaultFile("postgresql.crt");
                key = defaultFile("postgresql.key");
            }
            if (cert != null) {
                boolean encrypted = checkKeyFormat(key, config.sslPassword() != null);
                // libpq ignores sslpassword for an unencrypted key; Netty would fail on it, so drop it.
                try {
                    b.keyManager(cert.toFile(), key.toFile(), encrypted ? config.sslPassword() : null);
                } catch (IllegalArgumentException e) {
                    if (!encrypted) throw e;
                    throw new PgClientException(PgClientException.Kind.TLS, "could not decrypt client key \"" + key
                            + "\": wrong sslpassword, or an encryption scheme this JDK cannot read", e);
                }
            }
            return new TlsSupport(b.build(), mode, config);
        } catch (PgClientException e) {
            throw e;
        } catch (Exception e) {
            // Messages of key/cert loaders name files and formats, never key material.
            throw new PgClientException(PgClientException.Kind.TLS, "could not set up TLS: " + e.getMessage(), e);
        }
    }

    /**
     * Netty reads PKCS#8 keys only (encrypted ones with the password). libpq also takes OpenSSL's
     * traditional formats; say how to convert rather than fail with a parser message.
     */
    static boolean checkKeyFormat(Path key, boolean havePassword) throws java.io.IOException {
        String text;
        try (java.io.InputStream in = Files.newInputStream(key)) {
            // The header is at the top; never keep or show more than that of a key file.
            text = new String(in.readNBytes(4096), java.nio.charset.StandardCharsets.US_ASCII);
        }
        String convert = "convert it with: openssl pkcs8 -topk8 -in " + key.getFileName() + " -out " + key.getFileName()
                + ".pk8 (add -nocrypt for an unencrypted key, or keep it encrypted and give sslpassword)";
        if (text.contains("-----BEGIN RSA PRIVATE KEY-----") || text.contains("-----BEGIN EC PRIVATE KEY-----")
                || text.contains("-----BEGIN DSA PRIVATE KEY-----")) {
            throw new PgClientException(PgClientException.Kind.TLS, "client key \"" + key
                    + "\" is in the traditional OpenSSL (PKCS#1/SEC1) format; this client reads PKCS#8 keys only: " + convert);
        }
        if (text.contains("Proc-Type: 4,ENCRYPTED")) {
            throw new PgClientException(PgClientException.Kind.TLS, "client key \"" + key
                    + "\" is encrypted in the traditional OpenSSL format; this client reads PKCS#8 keys only: " + convert);
        }
        boolean encrypted = text.contains("-----BEGIN ENCRYPTED PRIVATE KEY-----");
        if (encrypted && !havePassword) {
            throw new PgClientException(PgClientException.Kind.TLS, "client key \"" + key
                    + "\" is encrypted: give its passphrase with sslpassword");
        }
        return encrypted;
    }

    private static Path rootCertificate(ConnectionConfig config) {
        Path p = config.sslRootCert();
        if (p != null) {
            if (p.toString().equals("system")) return null;
            if (!Files.isReadable(p)) {
                if (config.sslMode() == SslMode.VERIFY_CA || config.sslMode() == SslMode.VERIFY_FULL) {
                    throw new PgClientException(PgClientException.Kind.TLS, "could not read root certificate file \"" + p + "\"");
                }
                return null;
            }
            return p;
        }
        Path d = defaultFile("root.crt");
        return Files.isReadable(d) ? d : null;
    }

    private static Path defaultFile(String name) {
        return Path.of(System.getProperty("user.home"), ".postgresql", name);
    }

    public SslMode effectiveMode() {
        return effectiveMode;
    }

    /** A new handler; SNI carries the host name unless sslsni=0 or the host is an IP literal. */
    public SslHandler newHandler(ByteBufAllocator alloc) {
        String host = config.host();
        if (config.sslSni() && !HostnameVerifier.isIpLiteral(host)) {
            return context.newHandler(alloc, host, config.port());
        }
        return context.newHandler(alloc);
    }

    /** After the handshake: the leaf certificate, checked against the host name under verify-full. */
    public X509Certificate verifyPeer(SSLSession session) {
        Certificate[] chain;
        try {
            chain = session.getPeerCertificates();
        } catch (SSLPeerUnverifiedException e) {
            throw new PgClientException(PgClientException.Kind.TLS, "server presented no certificate");
        }
        if (chain.length == 0 || !(chain[0] instanceof X509Certificate leaf)) {
            throw new PgClientException(PgClientException.Kind.TLS, "server presented no X.509 certificate");
        }
        if (effectiveMode == SslMode.VERIFY_FULL && !HostnameVerifier.matches(config.host(), leaf)) {
            throw new PgClientException(PgClientException.Kind.TLS,
                    "server certificate does not match host name \"" + config.host() + "\"");
        }
        return leaf;
    }
}
