package io.pgrepl.client.internal.auth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.auth.AuthenticationException;
import java.security.MessageDigest;
import java.security.cert.X509Certificate;
import org.junit.jupiter.api.Test;

class TlsServerEndPointTest {
    private static void assertHashedWith(X509Certificate cert, String digest) throws Exception {
        assertArrayEquals(MessageDigest.getInstance(digest).digest(cert.getEncoded()),
                TlsServerEndPoint.certificateHash(cert), cert.getSigAlgName());
    }

    @Test
    void rsaSha256UsesSha256() throws Exception {
        assertHashedWith(TestCertificates.rsa("SHA256withRSA"), "SHA-256");
    }

    @Test
    void ecdsaSha384UsesSha384() throws Exception {
        assertHashedWith(TestCertificates.ec("secp384r1", "SHA384withECDSA"), "SHA-384");
    }

    @Test
    void rsaSha512UsesSha512() throws Exception {
        assertHashedWith(TestCertificates.rsa("SHA512withRSA"), "SHA-512");
    }

    @Test
    void sha1AndMd5AreUpgradedToSha256() throws Exception {
        assertHashedWith(TestCertificates.rsa("SHA1withRSA"), "SHA-256");
        assertHashedWith(TestCertificates.rsa("MD5withRSA"), "SHA-256");
        assertHashedWith(TestCertificates.ec("secp256r1", "SHA1withECDSA"), "SHA-256");
    }

    @Test
    void rsaPssUsesItsHashParameter() throws Exception {
        X509Certificate pss = TestCertificates.rsa("SHA384withRSAandMGF1");
        assertEquals("RSASSA-PSS", pss.getSigAlgName());
        assertHashedWith(pss, "SHA-384");
    }

    @Test
    void ed25519MakesBindingImpossible() throws Exception {
        AuthenticationException e = assertThrows(AuthenticationException.class,
                () -> TlsServerEndPoint.certificateHash(TestCertificates.ed25519()));
        assertEquals(AuthenticationException.Reason.CHANNEL_BINDING_IMPOSSIBLE, e.reason());
        assertTrue(e.getMessage().startsWith("channel binding impossible with this certificate"));
    }
}
