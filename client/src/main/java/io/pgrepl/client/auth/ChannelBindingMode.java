package io.pgrepl.client.auth;

import java.util.Locale;

/** libpq's {@code channel_binding} option. */
public enum ChannelBindingMode {
    /** Never SCRAM-SHA-256-PLUS. */
    DISABLE,
    /** libpq's default when built with TLS support. */
    PREFER,
    /** Fail unless SCRAM-SHA-256-PLUS over TLS completes. */
    REQUIRE;

    /**
     * Parses the libpq spelling ({@code disable}, {@code prefer}, {@code require}).
     *
     * @param value the keyword
     * @return the mode
     * @throws IllegalArgumentException for any other value
     */
    public static ChannelBindingMode parse(String value) {
        switch (value) {
            case "disable":
                return DISABLE;
            case "prefer":
                return PREFER;
            case "require":
                return REQUIRE;
            default:
                throw new IllegalArgumentException(
                        "invalid channel_binding value: \"" + value + "\" (expected disable, prefer or require)");
        }
    }

    /**
     * The libpq spelling.
     *
     * @return the keyword
     */
    public String keyword() {
        return name().toLowerCase(Locale.ROOT);
    }
}
