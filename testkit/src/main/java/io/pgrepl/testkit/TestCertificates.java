package io.pgrepl.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyFactory;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A test CA with a server certificate (SAN DNS localhost, IP 127.0.0.1) and client certificates
 * (CN = role name), made once per key type and shared by every server and JVM (see the cache).
 */
final class TestCertificates {
    private static final Map<TlsKeyType, Bundle> BUNDLES = new EnumMap<>(TlsKeyType.class);
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final List<String> USERS = List.of(PgServerSpec.SUPERUSER, PgServerSpec.REPLICATION_USER,
            PgServerSpec.PLAIN_USER);

    record Issued(X509Certificate certificate, PrivateKey key) {
        String certPem() {
            try {
                return pem("CERTIFICATE", certificate.getEncoded());
            } catch (CertificateEncodingException e) {
                throw new IllegalStateException(e);
            }
        }

        /** Unencrypted PKCS#8, which OpenSSL and Netty both read. */
        String keyPem() {
            return pem("PRIVATE KEY", key.getEncoded());
        }
    }

    record Bundle(Issued ca, Issued server, Map<String, Issued> clients) {}

    private TestCertificates() {}

    static synchronized Bundle bundle(TlsKeyType type) {
        return BUNDLES.computeIfAbsent(type, TestCertificates::cachedOrGenerate);
    }

    /**
     * RSA key generation takes seconds on a small machine, so bundles are kept in the shared cache
     * (test keys, not secrets) under a name that changes weekly, well inside the 30-day validity.
     */
    private static Bundle cachedOrGenerate(TlsKeyType type) {
        long week = Instant.now().getEpochSecond() / (7 * 24 * 3600);
        Path dir = KitDirs.once(KitDirs.certificates(), type + "-" + week, temp -> {
            Bundle fresh = generate(type);
            store(temp.resolve("ca"), fresh.ca());
            store(temp.resolve("server"), fresh.server());
            for (Map.Entry<String, Issued> e : fresh.clients().entrySet()) {
                store(temp.resolve("client-" + e.getKey()), e.getValue());
            }
        });
        try {
            Map<String, Issued> clients = new LinkedHashMap<>();
            for (String user : USERS) {
                clients.put(user, load(dir.resolve("client-" + user), type));
            }
            return new Bundle(load(dir.resolve("ca"), type), load(dir.resolve("server"), type), Map.copyOf(clients));
        } catch (IOException | GeneralSecurityException e) {
            throw new IllegalStateException("cannot read cached test certificates in " + dir, e);
        }
    }

    private static void store(Path base, Issued issued) throws IOException {
        Path cert = Paths.get(base + ".crt");
        Path key = Paths.get(base + ".key");
        Files.writeString(cert, issued.certPem(), StandardCharsets.US_ASCII);
        Files.writeString(key, issued.keyPem(), StandardCharsets.US_ASCII);
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
    }

    private static Issued load(Path base, TlsKeyType type) throws IOException, GeneralSecurityException {
        X509Certificate cert;
        try (InputStream in = Files.newInputStream(Paths.get(base + ".crt"))) {
            cert = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
        String pem = Files.readString(Paths.get(base + ".key"), StandardCharsets.US_ASCII);
        byte[] der = Base64.getMimeDecoder().decode(pem.replaceAll("-----[A-Z ]+-----", ""));
        PrivateKey key = KeyFactory.getInstance(type.keyAlgorithm()).generatePrivate(new PKCS8EncodedKeySpec(der));
        return new Issued(cert, key);
    }

    private static Bundle generate(TlsKeyType type) {
        try {
            KeyPair caKeys = keyPair(type);
            X500Name caName = new X500Name("CN=pgrepl test CA " + type);
            X509v3CertificateBuilder ca = builder(caName, caName, caKeys);
            ca.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
            ca.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
            X509Certificate caCert = sign(ca, caKeys.getPrivate(), type);
            Issued caIssued = new Issued(caCert, caKeys.getPrivate());

            Issued server = leaf(type, caIssued, "localhost", KeyPurposeId.id_kp_serverAuth,
                    new GeneralNames(new GeneralName[] {
                        new GeneralName(GeneralName.dNSName, "localhost"),
                        new GeneralName(GeneralName.iPAddress, "127.0.0.1")
                    }));
            Map<String, Issued> clients = new LinkedHashMap<>();
            for (String user : USERS) {
                clients.put(user, leaf(type, caIssued, user, KeyPurposeId.id_kp_clientAuth, null));
            }
            return new Bundle(caIssued, server, Map.copyOf(clients));
        } catch (GeneralSecurityException | OperatorCreationException | IOException e) {
            throw new IllegalStateException("cannot generate test certificates for " + type, e);
        }
    }

    private static Issued leaf(TlsKeyType type, Issued ca, String commonName, KeyPurposeId purpose,
            GeneralNames altNames) throws GeneralSecurityException, OperatorCreationException, CertIOException {
        KeyPair keys = keyPair(type);
        X509v3CertificateBuilder b = builder(X500Name.getInstance(ca.certificate().getSubjectX500Principal()
                .getEncoded()), new X500Name("CN=" + commonName), keys);
        JcaX509ExtensionUtils utils = new JcaX509ExtensionUtils();
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
        int usage = KeyUsage.digitalSignature | ("RSA".equals(type.keyAlgorithm()) ? KeyUsage.keyEncipherment : 0);
        b.addExtension(Extension.keyUsage, true, new KeyUsage(usage));
        b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(purpose));
        b.addExtension(Extension.authorityKeyIdentifier, false,
                utils.createAuthorityKeyIdentifier(ca.certificate()));
        if (altNames != null) {
            b.addExtension(Extension.subjectAlternativeName, false, altNames);
        }
        return new Issued(sign(b, ca.key(), type), keys.getPrivate());
    }

    private static X509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair keys)
            throws GeneralSecurityException, CertIOException {
        Instant now = Instant.now();
        X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(issuer, new BigInteger(64, RANDOM).abs()
                .add(BigInteger.ONE), Date.from(now.minus(Duration.ofHours(1))),
                Date.from(now.plus(Duration.ofDays(30))), subject, keys.getPublic());
        b.addExtension(Extension.subjectKeyIdentifier, false,
                new JcaX509ExtensionUtils().createSubjectKeyIdentifier(keys.getPublic()));
        return b;
    }

    private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey key, TlsKeyType type)
            throws OperatorCreationException, GeneralSecurityException {
        return new JcaX509CertificateConverter()
                .getCertificate(b.build(new JcaContentSignerBuilder(type.signatureAlgorithm()).build(key)));
    }

    private static KeyPair keyPair(TlsKeyType type) throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance(type.keyAlgorithm());
        if (type.curve() != null) {
            generator.initialize(new ECGenParameterSpec(type.curve()), RANDOM);
        } else {
            generator.initialize(type.keySize(), RANDOM);
        }
        return generator.generateKeyPair();
    }

    static String pem(String label, byte[] der) {
        String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
        return "-----BEGIN " + label + "-----\n" + body + "\n-----END " + label + "-----\n";
    }
}
