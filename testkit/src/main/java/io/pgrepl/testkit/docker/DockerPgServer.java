package io.pgrepl.testkit.docker;

import io.pgrepl.testkit.AuthMethod;
import io.pgrepl.testkit.PgBackendUnavailableException;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.PgServerSpec;
import io.pgrepl.testkit.ServerTls;
import io.pgrepl.testkit.StopMode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.Container;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.utility.DockerImageName;

/**
 * The official {@code postgres:<major>} image through Testcontainers. Minimal: no TLS, and the
 * server cannot be stopped and started again (postgres is the container's main process).
 */
final class DockerPgServer implements PgServer {
    private final PgServerSpec spec;
    private final GenericContainer<?> container;
    private final Map<String, String> settings;
    private final String version;
    private Path logFile;

    private DockerPgServer(PgServerSpec spec, GenericContainer<?> container, Map<String, String> settings,
            String version) {
        this.spec = spec;
        this.container = container;
        this.settings = settings;
        this.version = version;
    }

    static PgServer start(PgServerSpec spec) {
        if (spec.tls() != null) {
            throw new PgBackendUnavailableException("the docker backend does not support TLS servers");
        }
        if (!spec.extensions().isEmpty()) {
            throw new PgBackendUnavailableException("the docker backend does not add extension files ("
                    + spec.extensions() + "): use the embedded backend");
        }
        Map<String, String> settings = new LinkedHashMap<>();
        settings.put("wal_level", "logical");
        settings.put("max_wal_senders", "20");
        settings.put("max_replication_slots", "20");
        settings.put("max_prepared_transactions", "20");
        settings.put("fsync", "off");
        settings.put("synchronous_commit", "off");
        settings.put("password_encryption", spec.auth().passwordEncryption());
        settings.putAll(spec.settings());
        List<String> command = new ArrayList<>(List.of("postgres"));
        settings.forEach((k, v) -> {
            command.add("-c");
            command.add(k + "=" + v);
        });
        String method = spec.auth().hbaMethod();
        String roles = "SET password_encryption = '" + spec.auth().passwordEncryption() + "';\n"
                + "ALTER ROLE postgres PASSWORD " + literal(spec.superuserPassword()) + ";\n"
                + "CREATE ROLE " + PgServerSpec.REPLICATION_USER + " LOGIN REPLICATION PASSWORD "
                + literal(spec.replicationUser().password()) + ";\n"
                + "CREATE ROLE " + PgServerSpec.PLAIN_USER + " LOGIN PASSWORD "
                + literal(spec.plainUser().password()) + ";\n";
        // The image's own rule is "host all all all <method>"; physical replication needs its own line.
        String hba = "#!/bin/sh\necho 'host replication all all " + method + "' >> \"$PGDATA/pg_hba.conf\"\n";
        GenericContainer<?> container = new GenericContainer<>(DockerImageName.parse("postgres:" + spec.version()))
                .withEnv("POSTGRES_PASSWORD", spec.superuserPassword())
                .withEnv("POSTGRES_HOST_AUTH_METHOD", method)
                .withEnv("POSTGRES_INITDB_ARGS", "--auth-host=" + method)
                .withCopyToContainer(Transferable.of(roles), "/docker-entrypoint-initdb.d/10-pgrepl-roles.sql")
                .withCopyToContainer(Transferable.of(hba, 0755), "/docker-entrypoint-initdb.d/20-pgrepl-hba.sh")
                .withCommand(command.toArray(String[]::new))
                .withExposedPorts(5432)
                .waitingFor(Wait.forLogMessage(".*database system is ready to accept connections.*\\n", 2));
        container.start();
        String version = "";
        try {
            Container.ExecResult r = container.execInContainer("postgres", "--version");
            String out = r.getStdout().trim();
            version = out.substring(out.lastIndexOf(' ') + 1);
        } catch (IOException | InterruptedException e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
        }
        return new DockerPgServer(spec, container, settings, version);
    }

    static boolean dockerAvailable() {
        return DockerClientFactory.instance().isDockerAvailable();
    }

    private static String literal(String s) {
        return "'" + s.replace("'", "''") + "'";
    }

    @Override
    public PgServerSpec spec() {
        return spec;
    }

    @Override
    public String host() {
        return container.getHost();
    }

    @Override
    public int port() {
        return container.getMappedPort(5432);
    }

    @Override
    public int majorVersion() {
        return spec.version();
    }

    @Override
    public String version() {
        return version;
    }

    @Override
    public AuthMethod authMethod() {
        return spec.auth();
    }

    @Override
    public Optional<ServerTls> tls() {
        return Optional.empty();
    }

    @Override
    public synchronized Map<String, String> settings() {
        return Map.copyOf(settings);
    }

    @Override
    public boolean isRunning() {
        return container.isRunning();
    }

    @Override
    public void stop(StopMode mode) {
        throw new UnsupportedOperationException("the docker backend cannot stop and restart a server");
    }

    @Override
    public void start() {
        if (!container.isRunning()) {
            throw new UnsupportedOperationException("the docker backend cannot stop and restart a server");
        }
    }

    @Override
    public void restart() {
        throw new UnsupportedOperationException("the docker backend cannot stop and restart a server");
    }

    @Override
    public synchronized void reload(Map<String, String> newSettings) {
        StringBuilder sql = new StringBuilder();
        newSettings.forEach((k, v) -> sql.append("ALTER SYSTEM SET ").append(k).append(" = ")
                .append(literal(v)).append(";\n"));
        sql.append("SELECT pg_reload_conf();\n");
        try {
            Container.ExecResult r = container.execInContainer("psql", "-U", "postgres", "-v", "ON_ERROR_STOP=1",
                    "-c", sql.toString());
            if (r.getExitCode() != 0) {
                throw new IllegalStateException("reload failed: " + r.getStderr());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
        settings.putAll(newSettings);
    }

    /** A snapshot of the container log, refreshed on every call. */
    @Override
    public synchronized Path logFile() {
        try {
            if (logFile == null) {
                logFile = Files.createTempFile("pgrepl-docker-", ".log");
            }
            Files.writeString(logFile, container.getLogs(), StandardCharsets.UTF_8);
            return logFile;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public Path dataDir() {
        throw new UnsupportedOperationException("the docker backend's data directory is inside the container");
    }

    @Override
    public synchronized void close() {
        container.stop();
        if (logFile != null) {
            try {
                Files.deleteIfExists(logFile);
            } catch (IOException ignored) {
                // a temp file left behind is harmless
            }
        }
    }

    @Override
    public String toString() {
        return "PgServer[docker postgres:" + spec.version() + " " + (container.isRunning()
                ? container.getHost() + ":" + port() : "stopped") + ", " + spec.auth() + "]";
    }
}
