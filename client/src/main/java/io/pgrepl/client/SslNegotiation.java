package io.pgrepl.client;

import java.util.Locale;

/** libpq 17's sslnegotiation: SSLRequest first ({@code postgres}) or TLS straight away ({@code direct}, PG17+). */
public enum SslNegotiation {
    /** Send SSLRequest and start TLS only if the server agrees (the default; every server). */
    POSTGRES,
    /** Start TLS at once, with ALPN {@code postgresql} (PostgreSQL 17+). */
    DIRECT;

    /**
     * Reads the libpq keyword, case-insensitively.
     *
     * @param s {@code postgres} or {@code direct}
     * @return the negotiation
     * @throws IllegalArgumentException for any other value
     */
    public static SslNegotiation parse(String s) {
        return switch (s.toLowerCase(Locale.ROOT)) {
            case "postgres" -> POSTGRES;
            case "direct" -> DIRECT;
            default -> throw new IllegalArgumentException("invalid sslnegotiation value: \"" + s + "\"");
        };
    }
}
