package io.pgrepl.client.internal.auth;

import java.io.ByteArrayInputStream;
import java.math.BigInteger;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** Self-signed certificates generated on the fly, parsed back by the JDK as a TLS stack would. */
final class TestCertificates {
    private static final BouncyCastleProvider BC = new BouncyCastleProvider();

    private TestCertificates() {
    }

    static X509Certificate rsa(String signatureAlgorithm) throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2048);
        return selfSigned(g.generateKeyPair(), signatureAlgorithm);
    }

    static X509Certificate ec(String curve, String signatureAlgorithm) throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec(curve));
        return selfSigned(g.generateKeyPair(), signatureAlgorithm);
    }

    static X509Certificate ed25519() throws Exception {
        return selfSigned(KeyPairGenerator.getInstance("Ed25519").generateKeyPair(), "Ed25519");
    }

    static X509Certificate selfSigned(KeyPair keys, String signatureAlgorithm) throws Exception {
        X500Name name = new X500Name("CN=pgrepl-test");
        long now = System.currentTimeMillis();
        JcaX509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(name, BigInteger.valueOf(now),
                new Date(now - 60_000), new Date(now + 86_400_000L), name, keys.getPublic());
        byte[] der = builder.build(new JcaContentSignerBuilder(signatureAlgorithm).setProvider(BC)
                .build(keys.getPrivate())).getEncoded();
        return (X509Certificate) CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(der));
    }
}
