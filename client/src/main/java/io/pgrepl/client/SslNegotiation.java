package io.pgrepl.client;

import java.util.Locale;

/** libpq 17's sslnegotiation: SSLRequest first ({@code postgres}) or TLS straight away ({@code direct}, PG17+). */
public enum SslNegotiation {
    POSTGRES, DIRECT;

    public static SslNegotiation parse(String s) {
        return switch (s.toLowerCase(Locale.ROOT)) {
            case "postgres" -> POSTGRES;
            case "direct" -> DIRECT;
            default -> throw new IllegalArgumentException("invalid sslnegotiation value: \"" + s + "\"");
        };
    }
}
