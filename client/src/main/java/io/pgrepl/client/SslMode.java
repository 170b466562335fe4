package io.pgrepl.client;

import java.util.Locale;

/** libpq's sslmode values with libpq's meaning. */
public enum SslMode {
    DISABLE, ALLOW, PREFER, REQUIRE, VERIFY_CA, VERIFY_FULL;

    public static SslMode parse(String s) {
        return switch (s.toLowerCase(Locale.ROOT)) {
            case "disable" -> DISABLE;
            case "allow" -> ALLOW;
            case "prefer" -> PREFER;
            case "require" -> REQUIRE;
            case "verify-ca" -> VERIFY_CA;
            case "verify-full" -> VERIFY_FULL;
            default -> throw new IllegalArgumentException("invalid sslmode value: \"" + s + "\"");
        };
    }

    /** require and stricter: plaintext is never acceptable. */
    public boolean requiresTls() {
        return compareTo(REQUIRE) >= 0;
    }

    public String keyword() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }
}
