package io.pgrepl.client;

import io.pgrepl.client.auth.PasswordSource;
import io.pgrepl.client.internal.config.ConnInfo;
import io.pgrepl.client.internal.config.PasswordSources;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * libpq password precedence (explicit/URL &gt; PGPASSWORD &gt; password file) through the config
 * package; the file is read only if the server asks for a password.
 */
final class Passwords {
    private Passwords() {}

    static PasswordSource source(ConnectionConfig cfg) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("host", cfg.host());
        if (cfg.hostAddress() != null) m.put("hostaddr", cfg.hostAddress());
        m.put("port", Integer.toString(cfg.port()));
        m.put("dbname", cfg.database());
        m.put("user", cfg.user());
        if (cfg.password() != null) m.put("password", cfg.password());
        if (cfg.passFile() != null) m.put("passfile", cfg.passFile().toString());
        return PasswordSources.forConnection(ConnInfo.of(m), cfg.user());
    }
}
