package io.pgrepl.client.config;

import java.util.Locale;

/** libpq's {@code sslmode}. */
public enum SslMode {
    DISABLE,
    ALLOW,
    /** libpq's default. */
    PREFER,
    REQUIRE,
    VERIFY_CA,
    VERIFY_FULL;

    /** The libpq spelling, e.g. {@code verify-full}. */
    public String keyword() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    public static SslMode parse(String value) {
        for (SslMode m : values()) {
            if (m.keyword().equals(value)) {
                return m;
            }
        }
        throw new ConnInfoException("invalid sslmode value: \"" + value
                + "\" (expected disable, allow, prefer, require, verify-ca or verify-full)");
    }

    /** Whether the connection must be encrypted (require and stronger). */
    public boolean requiresEncryption() {
        return compareTo(REQUIRE) >= 0;
    }
}
