package io.pgrepl.testkit;

/** Whether TLS connections must present a client certificate, and what it proves. */
public enum ClientCertMode {
    /** No client certificate asked for. */
    NONE,
    /** {@code hostssl ... cert}: the certificate alone authenticates; its CN must be the role name. */
    CERT,
    /** The auth method plus {@code clientcert=verify-ca} (PG 10/11: {@code clientcert=1}). */
    VERIFY_CA,
    /** The auth method plus {@code clientcert=verify-full} (PG 12+): CN must match the role too. */
    VERIFY_FULL
}
