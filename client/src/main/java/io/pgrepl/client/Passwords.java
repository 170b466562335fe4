package io.pgrepl.client;

import java.nio.charset.StandardCharsets;

/** libpq password precedence: explicit (URL/config) > PGPASSWORD > password file. Asked only when the server wants one. */
final class Passwords {
    private Passwords() {}

    static byte[] resolve(ConnectionConfig cfg) {
        if (cfg.password() != null) return cfg.password().getBytes(StandardCharsets.UTF_8);
        String env = System.getenv("PGPASSWORD");
        if (env != null && !env.isEmpty()) return env.getBytes(StandardCharsets.UTF_8);
        return new byte[0];
    }
}
