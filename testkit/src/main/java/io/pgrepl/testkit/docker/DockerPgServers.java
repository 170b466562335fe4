package io.pgrepl.testkit.docker;

import io.pgrepl.testkit.PgBackendUnavailableException;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.PgServerSpec;
import java.util.Optional;

/**
 * Entry to the Docker backend ({@code -Dpg.backend=docker}). This class touches no Testcontainers
 * type, so the optional dependency is loaded only when Docker is really asked for.
 */
public final class DockerPgServers {
    private DockerPgServers() {}

    private static volatile Optional<String> unavailable;

    /** Why the Docker backend cannot run here, if it cannot (checked once per JVM). */
    public static Optional<String> unavailableReason() {
        Optional<String> reason = unavailable;
        if (reason == null) {
            try {
                Class.forName("org.testcontainers.DockerClientFactory", false,
                        DockerPgServers.class.getClassLoader());
                reason = DockerPgServer.dockerAvailable() ? Optional.empty()
                        : Optional.of("pg.backend=docker but no Docker engine answers");
            } catch (ClassNotFoundException e) {
                reason = Optional.of("pg.backend=docker needs org.testcontainers:testcontainers on the classpath");
            }
            unavailable = reason;
        }
        return reason;
    }

    /** @throws PgBackendUnavailableException without Testcontainers, a Docker engine, or for unsupported options */
    public static PgServer start(PgServerSpec spec) {
        Optional<String> reason = unavailableReason();
        if (reason.isPresent()) {
            throw new PgBackendUnavailableException(reason.get());
        }
        return DockerPgServer.start(spec);
    }
}
