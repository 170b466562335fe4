package io.pgrepl.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A PostgreSQL 18 OAuth validator module for tests ({@code oauth_validator_libraries}), compiled
 * from {@code oauth/test_validator.c} with the system C compiler: the kit's binaries carry no
 * server headers, so the module declares the two structures the server reads by hand. It
 * authorizes exactly {@link #GOOD} and {@link #GOOD_2}; any other token is rejected.
 */
public final class OAuthValidator implements AutoCloseable {
    /** A token the module accepts. */
    public static final String GOOD = "pgrepl-good-token.v1";
    /** A second accepted token (a refreshed one). */
    public static final String GOOD_2 = "pgrepl-good-token.v2";
    /** The issuer the pg_hba lines of {@link #trust} name. */
    public static final String ISSUER = "https://issuer.example.test";
    /** The scope the pg_hba lines of {@link #trust} name. */
    public static final String SCOPE = "openid pgrepl";

    private final Path dir;
    private final Path module;

    private OAuthValidator(Path dir, Path module) {
        this.dir = dir;
        this.module = module;
    }

    /**
     * Compiles the module into a fresh temporary directory.
     *
     * @return the module, or empty when there is no C compiler ({@code cc})
     * @throws IOException if compiling fails for another reason
     */
    public static Optional<OAuthValidator> compile() throws IOException, InterruptedException {
        Path dir = Files.createTempDirectory("pgrepl-oauth");
        Path source = dir.resolve("test_validator.c");
        try (InputStream in = OAuthValidator.class.getResourceAsStream("oauth/test_validator.c")) {
            Files.copy(in, source);
        }
        Path module = dir.resolve("test_validator.so");
        Process cc;
        try {
            cc = new ProcessBuilder("cc", "-shared", "-fPIC", "-O2", "-o", module.toString(), source.toString())
                    .redirectErrorStream(true).start();
        } catch (IOException e) {
            new OAuthValidator(dir, module).close();
            return Optional.empty();
        }
        String out = new String(cc.getInputStream().readAllBytes());
        if (!cc.waitFor(60, TimeUnit.SECONDS) || cc.exitValue() != 0) throw new IOException("cc failed: " + out);
        // The server may run as another user (the kit drops root): it must be able to read the module.
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(module, PosixFilePermissions.fromString("rwxr-xr-x"));
        return Optional.of(new OAuthValidator(dir, module));
    }

    /** {@return the compiled module, for {@code oauth_validator_libraries}} */
    public Path module() {
        return module;
    }

    /**
     * Puts {@code oauth} lines for {@code role} (ordinary and replication connections from
     * 127.0.0.1) first in the server's pg_hba.conf and reloads it. The server must have been
     * started with {@code oauth_validator_libraries} set to {@link #module()}.
     *
     * @param server a PostgreSQL 18 server
     * @param role   the role that signs in with a token
     */
    public void trust(PgServer server, String role) {
        try {
            Path hba = server.dataDir().resolve("pg_hba.conf");
            String oauth = " 127.0.0.1/32 oauth issuer=\"" + ISSUER + "\" scope=\"" + SCOPE + "\" delegate_ident_mapping=1\n";
            Files.writeString(hba, "host all " + role + oauth + "host replication " + role + oauth + Files.readString(hba));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        server.reload(Map.of());
    }

    @Override
    public void close() throws IOException {
        try (var files = Files.list(dir)) {
            for (Path f : files.toList()) Files.delete(f);
        }
        Files.delete(dir);
    }
}
