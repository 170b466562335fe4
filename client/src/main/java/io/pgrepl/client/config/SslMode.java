package io.pgrepl.client.config;

import java.util.Locale;

/** libpq's {@code sslmode}. */
public enum SslMode {
    /** Never TLS. */
    DISABLE,
    /** Plain first; TLS only if the server refuses a plain connection. */
    ALLOW,
    /** TLS if the server offers it, else plain (libpq's default); the certificate is not checked. */
    PREFER,
    /** TLS or fail; the certificate is not checked. */
    REQUIRE,
    /** TLS with a certificate signed by a trusted CA ({@code sslrootcert}). */
    VERIFY_CA,
    /** As {@link #VERIFY_CA}, and the certificate must name the host. */
    VERIFY_FULL;

    /**
     * The libpq spelling, e.g. {@code verify-full}.
     *
     * @return the keyword
     */
    public String keyword() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * Reads the libpq keyword.
     *
     * @param value e.g. {@code verify-full}
     * @return the mode
     * @throws ConnInfoException for any other value
     */
    public static SslMode parse(String value) {
        for (SslMode m : values()) {
            if (m.keyword().equals(value)) {
                return m;
            }
        }
        throw new ConnInfoException("invalid sslmode value: \"" + value
                + "\" (expected disable, allow, prefer, require, verify-ca or verify-full)");
    }

    /**
     * Whether the connection must be encrypted (require and stronger).
     *
     * @return true for require, verify-ca and verify-full
     */
    public boolean requiresEncryption() {
        return compareTo(REQUIRE) >= 0;
    }
}
