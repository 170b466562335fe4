package io.pgrepl.client;

import java.nio.charset.StandardCharsets;
import java.util.Optional;

/** libpq password precedence: explicit (URL/config) > PGPASSWORD > password file. Asked only when the server wants one. */
final class Passwords {
    private Passwords() {}

    static Optional<byte[]> resolve(ConnectionConfig cfg) {
        if (cfg.password() != null) return Optional.of(cfg.password().getBytes(StandardCharsets.UTF_8));
        String env = System.getenv("PGPASSWORD");
        if (env != null && !env.isEmpty()) return Optional.of(env.getBytes(StandardCharsets.UTF_8));
        return Optional.empty();
    }
}
