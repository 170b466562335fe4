package io.pgrepl.testkit.docker;

import io.pgrepl.testkit.PgBackendUnavailableException;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.PgServerSpec;

/**
 * Entry to the Docker backend ({@code -Dpg.backend=docker}). This class touches no Testcontainers
 * type, so the optional dependency is loaded only when Docker is really asked for.
 */
public final class DockerPgServers {
    private DockerPgServers() {}

    /** @throws PgBackendUnavailableException without Testcontainers, a Docker engine, or for unsupported options */
    public static PgServer start(PgServerSpec spec) {
        try {
            Class.forName("org.testcontainers.DockerClientFactory", false, DockerPgServers.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new PgBackendUnavailableException(
                    "pg.backend=docker needs org.testcontainers:testcontainers on the test classpath", e);
        }
        return DockerPgServer.start(spec);
    }
}
