package io.pgrepl.testkit;

/**
 * Key and signature algorithm of the generated CA, server and client certificates. The signature
 * hash decides the SCRAM channel-binding (tls-server-end-point) hash, so tests want both.
 */
public enum TlsKeyType {
    RSA_2048_SHA256("RSA", 2048, null, "SHA256withRSA"),
    EC_P256_SHA256("EC", 256, "secp256r1", "SHA256withECDSA"),
    EC_P384_SHA384("EC", 384, "secp384r1", "SHA384withECDSA");

    private final String keyAlgorithm;
    private final int keySize;
    private final String curve;
    private final String signatureAlgorithm;

    TlsKeyType(String keyAlgorithm, int keySize, String curve, String signatureAlgorithm) {
        this.keyAlgorithm = keyAlgorithm;
        this.keySize = keySize;
        this.curve = curve;
        this.signatureAlgorithm = signatureAlgorithm;
    }

    public String keyAlgorithm() {
        return keyAlgorithm;
    }

    public int keySize() {
        return keySize;
    }

    /** Named curve for EC keys, null for RSA. */
    public String curve() {
        return curve;
    }

    public String signatureAlgorithm() {
        return signatureAlgorithm;
    }
}
