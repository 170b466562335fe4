package io.pgrepl.client.internal.config;

import io.pgrepl.client.auth.PasswordSource;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * libpq's password precedence: the {@code password} parameter, then {@code PGPASSWORD}, then the
 * password file ({@code passfile} parameter, else {@code PGPASSFILE}, else {@code ~/.pgpass}). The
 * file is read only when the server actually asks for a password.
 */
public final class PasswordSources {
    /** Where a resolved password came from (useful for the "password retrieved from file" hint). */
    public enum Origin {
        /** The {@code password} parameter. */
        PARAMETER,
        /** {@code PGPASSWORD}. */
        ENVIRONMENT,
        /** A matching line of the password file. */
        PASSWORD_FILE,
        /** No password found. */
        NONE
    }

    private PasswordSources() {
    }

    /**
     * Uses the process environment and {@code user.home}.
     *
     * @param info the connection parameters
     * @param user the effective user name
     * @return the password, resolved when first asked for
     */
    public static Resolved forConnection(ConnInfo info, String user) {
        return forConnection(info, user, System::getenv, Path.of(System.getProperty("user.home")));
    }

    /**
     * Like {@link #forConnection(ConnInfo, String)} with the environment and home directory given.
     *
     * @param info the connection parameters
     * @param user the effective user name (the {@code user} parameter or its default)
     * @param env  environment lookup (injectable for tests); may return null
     * @param home the home directory holding {@code .pgpass}
     * @return the password, resolved when first asked for
     */
    public static Resolved forConnection(ConnInfo info, String user, Function<String, String> env, Path home) {
        Objects.requireNonNull(user, "user");
        return new Resolved(info, user, env, home);
    }

    /**
     * The password file to consult: {@code passfile}, else {@code PGPASSFILE}, else {@code home/.pgpass}.
     *
     * @param info the connection parameters
     * @param env  environment lookup; may return null
     * @param home the home directory
     * @return the path; the file may not exist
     */
    public static Path passfileLocation(ConnInfo info, Function<String, String> env, Path home) {
        Optional<String> param = info.get("passfile");
        if (param.isPresent()) {
            return Path.of(param.get());
        }
        String fromEnv = env.apply("PGPASSFILE");
        if (fromEnv != null && !fromEnv.isEmpty()) {
            return Path.of(fromEnv);
        }
        return home.resolve(".pgpass");
    }

    /** The host name pgpass lines are matched against (libpq's rule). */
    static String hostForMatching(ConnInfo info) {
        Optional<String> host = info.host();
        if (host.isPresent()) {
            String h = host.get();
            // A Unix socket in the default directory matches "localhost".
            if (h.equals("/tmp") || h.equals("/var/run/postgresql") || h.equals("/run/postgresql")) {
                return "localhost";
            }
            return h;
        }
        return info.hostaddr().orElse("localhost");
    }

    /** A lazily resolved password; {@link #origin()} tells which rule supplied it. */
    public static final class Resolved implements PasswordSource {
        private final ConnInfo info;
        private final String user;
        private final Function<String, String> env;
        private final Path home;
        private Origin origin;
        private String password;

        private Resolved(ConnInfo info, String user, Function<String, String> env, Path home) {
            this.info = info;
            this.user = user;
            this.env = env;
            this.home = home;
        }

        @Override
        public synchronized Optional<byte[]> password() {
            resolve();
            return password == null ? Optional.empty() : Optional.of(password.getBytes(StandardCharsets.UTF_8));
        }

        /**
         * Resolves (reading the file if needed) and says where the password came from.
         *
         * @return the rule that supplied the password, or NONE
         */
        public synchronized Origin origin() {
            resolve();
            return origin;
        }

        private void resolve() {
            if (origin != null) {
                return;
            }
            Optional<String> param = info.password();
            if (param.isPresent()) {
                set(Origin.PARAMETER, param.get());
                return;
            }
            String fromEnv = env.apply("PGPASSWORD");
            if (fromEnv != null && !fromEnv.isEmpty()) {
                set(Origin.ENVIRONMENT, fromEnv);
                return;
            }
            Path file = passfileLocation(info, env, home);
            try {
                Optional<String> fromFile = PgPass.load(file).flatMap(p -> p.lookup(hostForMatching(info),
                        info.get("port").orElse(Integer.toString(ConnInfo.DEFAULT_PORT)),
                        info.dbname().orElse(user), user));
                if (fromFile.isPresent()) {
                    set(Origin.PASSWORD_FILE, fromFile.get());
                    return;
                }
            } catch (IOException e) {
                throw new UncheckedIOException("could not read password file \"" + file + "\"", e);
            }
            origin = Origin.NONE;
        }

        private void set(Origin o, String pw) {
            origin = o;
            password = pw;
        }

        @Override
        public synchronized String toString() {
            return "PasswordSources.Resolved[" + (origin == null ? "unresolved" : origin) + "]";
        }
    }
}
