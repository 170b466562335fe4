package io.pgrepl.client.internal.auth;

import io.pgrepl.client.auth.AuthenticationException;
import io.pgrepl.client.auth.AuthenticationException.Reason;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.security.spec.PSSParameterSpec;
import java.util.Locale;
import java.util.Map;

/**
 * Channel-binding data of type {@code tls-server-end-point} (RFC 5929 §4.1): a digest of the
 * server's leaf certificate (DER), with the digest taken from the certificate's signature
 * algorithm, MD5 and SHA-1 upgraded to SHA-256. Signature schemes without a separate digest
 * (Ed25519, Ed448, ML-DSA) make channel binding impossible, as in libpq.
 */
final class TlsServerEndPoint {
    private static final Map<String, String> DIGEST_BY_OID = Map.ofEntries(
            Map.entry("1.2.840.113549.1.1.4", "SHA-256"),   // md5WithRSAEncryption (upgraded)
            Map.entry("1.2.840.113549.1.1.5", "SHA-256"),   // sha1WithRSAEncryption (upgraded)
            Map.entry("1.2.840.113549.1.1.14", "SHA-224"),
            Map.entry("1.2.840.113549.1.1.11", "SHA-256"),
            Map.entry("1.2.840.113549.1.1.12", "SHA-384"),
            Map.entry("1.2.840.113549.1.1.13", "SHA-512"),
            Map.entry("1.2.840.10045.4.1", "SHA-256"),      // ecdsa-with-SHA1 (upgraded)
            Map.entry("1.2.840.10045.4.3.1", "SHA-224"),
            Map.entry("1.2.840.10045.4.3.2", "SHA-256"),
            Map.entry("1.2.840.10045.4.3.3", "SHA-384"),
            Map.entry("1.2.840.10045.4.3.4", "SHA-512"),
            Map.entry("1.2.840.10040.4.3", "SHA-256"),      // dsa-with-sha1 (upgraded)
            Map.entry("2.16.840.1.101.3.4.3.1", "SHA-224"),
            Map.entry("2.16.840.1.101.3.4.3.2", "SHA-256"),
            Map.entry("2.16.840.1.101.3.4.3.9", "SHA3-224"),
            Map.entry("2.16.840.1.101.3.4.3.10", "SHA3-256"),
            Map.entry("2.16.840.1.101.3.4.3.11", "SHA3-384"),
            Map.entry("2.16.840.1.101.3.4.3.12", "SHA3-512"),
            Map.entry("2.16.840.1.101.3.4.3.13", "SHA3-224"),
            Map.entry("2.16.840.1.101.3.4.3.14", "SHA3-256"),
            Map.entry("2.16.840.1.101.3.4.3.15", "SHA3-384"),
            Map.entry("2.16.840.1.101.3.4.3.16", "SHA3-512"));
    private static final String RSASSA_PSS_OID = "1.2.840.113549.1.1.10";

    private TlsServerEndPoint() {
    }

    /**
     * Digest of the certificate for {@code p=tls-server-end-point}.
     *
     * @param certificate the server's certificate
     * @return the digest (RFC 5929: SHA-256 for MD5 and SHA-1 signatures)
     * @throws AuthenticationException {@link Reason#CHANNEL_BINDING_IMPOSSIBLE} when the signature
     *                                 algorithm has no usable digest
     */
    public static byte[] certificateHash(X509Certificate certificate) {
        String digest = digestAlgorithm(certificate);
        try {
            return MessageDigest.getInstance(digest).digest(certificate.getEncoded());
        } catch (CertificateEncodingException | java.security.NoSuchAlgorithmException e) {
            throw impossible(certificate.getSigAlgName());
        }
    }

    /**
     * The JCA digest name chosen for this certificate.
     *
     * @param certificate the server's certificate
     * @return e.g. {@code SHA-256}
     */
    public static String digestAlgorithm(X509Certificate certificate) {
        String oid = certificate.getSigAlgOID();
        String digest = DIGEST_BY_OID.get(oid);
        if (digest != null) {
            return digest;
        }
        if (RSASSA_PSS_OID.equals(oid)) {
            return upgrade(pssDigest(certificate));
        }
        throw impossible(certificate.getSigAlgName());
    }

    private static String pssDigest(X509Certificate certificate) {
        byte[] params = certificate.getSigAlgParams();
        if (params == null) {
            return "SHA-1"; // RFC 4055 default parameters
        }
        try {
            AlgorithmParameters ap = AlgorithmParameters.getInstance("RSASSA-PSS");
            ap.init(params);
            return ap.getParameterSpec(PSSParameterSpec.class).getDigestAlgorithm();
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw impossible("RSASSA-PSS with unreadable parameters");
        }
    }

    private static String upgrade(String digest) {
        String d = digest.toUpperCase(Locale.ROOT).replace("-", "");
        switch (d) {
            case "MD5":
            case "SHA1":
            case "SHA":
            case "SHA256":
                return "SHA-256";
            case "SHA224":
                return "SHA-224";
            case "SHA384":
                return "SHA-384";
            case "SHA512":
                return "SHA-512";
            default:
                if (d.startsWith("SHA3")) {
                    return digest;
                }
                throw impossible("RSASSA-PSS with " + digest);
        }
    }

    private static AuthenticationException impossible(String algorithm) {
        return new AuthenticationException(Reason.CHANNEL_BINDING_IMPOSSIBLE,
                "channel binding impossible with this certificate: no digest for signature algorithm "
                        + algorithm);
    }
}
