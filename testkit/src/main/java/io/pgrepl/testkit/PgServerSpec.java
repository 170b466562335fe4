package io.pgrepl.testkit;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Everything that decides how a test server is made. Built with {@link PgServer#builder()}.
 *
 * @param version           major version (10, 12 ... 18)
 * @param auth              method for every host line in pg_hba.conf
 * @param tls               TLS options, or null for a server without TLS
 * @param settings          extra postgresql.conf settings; they override the kit's defaults
 * @param superuserPassword password of the superuser {@code postgres}
 * @param backend           embedded binaries or Docker
 * @param extensions        extensions built elsewhere whose files the embedded installation gets
 *                          ({@link ExtensionFiles}); the Docker backend refuses them
 */
public record PgServerSpec(
        int version,
        AuthMethod auth,
        TlsOptions tls,
        Map<String, String> settings,
        String superuserPassword,
        Backend backend,
        List<ExtensionFiles> extensions) {

    public static final String SUPERUSER = "postgres";
    public static final String REPLICATION_USER = "repl_user";
    public static final String PLAIN_USER = "plain_user";
    /** Test passwords: distinctive, so that finding one in the suite's output means a leak (see secrets.SecretLeakWatch). */
    public static final String DEFAULT_SUPERUSER_PASSWORD = "su-pw-Zq7xK2vR";
    public static final String REPLICATION_PASSWORD = "repl-pw-Hm4tN8wC";
    public static final String PLAIN_PASSWORD = "plain-pw-Bd9sL3yF";

    public PgServerSpec {
        Objects.requireNonNull(auth, "auth");
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(superuserPassword, "superuserPassword");
        settings = Map.copyOf(settings);
        extensions = List.copyOf(extensions);
        if (tls != null && tls.clientCertMode() == ClientCertMode.VERIFY_FULL && version < 12) {
            throw new IllegalArgumentException("clientcert=verify-full needs PostgreSQL 12+, not " + version);
        }
    }

    public PgUser superuser() {
        return new PgUser(SUPERUSER, superuserPassword);
    }

    public PgUser replicationUser() {
        return new PgUser(REPLICATION_USER, REPLICATION_PASSWORD);
    }

    public PgUser plainUser() {
        return new PgUser(PLAIN_USER, PLAIN_PASSWORD);
    }

    @Override
    public String toString() {
        return "PgServerSpec[version=" + version + ", auth=" + auth + ", tls=" + tls + ", settings=" + settings
                + ", backend=" + backend + (extensions.isEmpty() ? "" : ", extensions=" + extensions) + "]";
    }

    /** Fluent construction; {@link #start()} starts the server. */
    public static final class Builder {
        private int version = PgVersions.defaultVersion();
        private AuthMethod auth = AuthMethod.SCRAM_SHA_256;
        private TlsOptions tls;
        private final Map<String, String> settings = new LinkedHashMap<>();
        private String superuserPassword = DEFAULT_SUPERUSER_PASSWORD;
        private Backend backend;
        private final List<ExtensionFiles> extensions = new ArrayList<>();

        Builder() {}

        public Builder version(int major) {
            this.version = major;
            return this;
        }

        public Builder auth(AuthMethod method) {
            this.auth = Objects.requireNonNull(method);
            return this;
        }

        /** TLS options, or null for none. */
        public Builder tls(TlsOptions options) {
            this.tls = options;
            return this;
        }

        public Builder setting(String name, String value) {
            settings.put(Objects.requireNonNull(name), Objects.requireNonNull(value));
            return this;
        }

        public Builder settings(Map<String, String> more) {
            more.forEach(this::setting);
            return this;
        }

        public Builder superuserPassword(String password) {
            this.superuserPassword = Objects.requireNonNull(password);
            return this;
        }

        /** Adds an extension's files to the embedded installation (see {@link ExtensionFiles}). */
        public Builder extension(ExtensionFiles files) {
            extensions.add(Objects.requireNonNull(files));
            return this;
        }

        /** Overrides {@code -Dpg.backend}. */
        public Builder backend(Backend chosen) {
            this.backend = chosen;
            return this;
        }

        public PgServerSpec build() {
            Backend chosen = backend != null ? backend : Backend.fromSystemProperty();
            return new PgServerSpec(version, auth, tls, settings, superuserPassword, chosen, extensions);
        }

        public PgServer start() {
            return PgServer.start(build());
        }
    }
}
