package io.pgrepl.testkit;

import java.util.Objects;

/**
 * TLS for a test server: {@code ssl=on} with a freshly generated CA and server certificate
 * (SAN DNS localhost, IP 127.0.0.1).
 *
 * @param keyType        key and signature algorithm of all generated certificates
 * @param hostsslOnly    when true, pg_hba has no non-TLS lines, so plaintext connections are rejected
 * @param clientCertMode whether TLS connections must present a client certificate
 */
public record TlsOptions(TlsKeyType keyType, boolean hostsslOnly, ClientCertMode clientCertMode) {

    public TlsOptions {
        Objects.requireNonNull(keyType, "keyType");
        Objects.requireNonNull(clientCertMode, "clientCertMode");
    }

    /** RSA-2048 keys, SHA256withRSA signatures. */
    public static TlsOptions rsaSha256() {
        return new TlsOptions(TlsKeyType.RSA_2048_SHA256, false, ClientCertMode.NONE);
    }

    /** EC P-384 keys, SHA384withECDSA signatures. */
    public static TlsOptions ecdsaSha384() {
        return new TlsOptions(TlsKeyType.EC_P384_SHA384, false, ClientCertMode.NONE);
    }

    public static TlsOptions of(TlsKeyType keyType) {
        return new TlsOptions(keyType, false, ClientCertMode.NONE);
    }

    public TlsOptions hostsslOnly(boolean only) {
        return new TlsOptions(keyType, only, clientCertMode);
    }

    /** True: {@code hostssl ... cert} authentication; false: no client certificate. */
    public TlsOptions clientCertificates(boolean required) {
        return new TlsOptions(keyType, hostsslOnly, required ? ClientCertMode.CERT : ClientCertMode.NONE);
    }

    public TlsOptions clientCertMode(ClientCertMode mode) {
        return new TlsOptions(keyType, hostsslOnly, mode);
    }

    public boolean clientCertificates() {
        return clientCertMode != ClientCertMode.NONE;
    }
}
