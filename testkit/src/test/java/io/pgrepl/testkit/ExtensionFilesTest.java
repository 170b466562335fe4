package io.pgrepl.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.config.SslMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Extension files from a distribution's package on an embedded server: Debian's PostGIS for
 * PostgreSQL 15 where it is installed ({@code apt-get install postgresql-15-postgis-3}), skipped elsewhere.
 */
class ExtensionFilesTest {

    @Test
    void missingControlFileIsRefusedNamingIt(@TempDir Path empty) {
        ExtensionFiles files = new ExtensionFiles("postgis", empty, empty);
        PgServerSpec.Builder spec = PgServer.builder().version(15).backend(Backend.EMBEDDED).extension(files);
        IllegalStateException e = assertThrows(IllegalStateException.class, spec::start);
        assertTrue(e.getMessage().contains(empty.resolve("postgis.control").toString()), e.getMessage());
    }

    @Test
    void debianPostgisRunsOnTheEmbeddedServer() throws Exception {
        ExtensionFiles postgis = ExtensionFiles.debian("postgis", 15);
        Assumptions.assumeTrue(postgis.installed(), "Debian's postgresql-15-postgis-3 is not installed");
        try (PgServer plain = PgServer.builder().version(15).backend(Backend.EMBEDDED).start()) {
            Exception e = assertThrows(Exception.class, () -> query(plain, "CREATE EXTENSION postgis"));
            assertTrue(String.valueOf(e.getMessage()).contains("is not available"), String.valueOf(e));
        }
        try (PgServer server = PgServer.builder().version(15).backend(Backend.EMBEDDED).extension(postgis).start()) {
            query(server, "CREATE EXTENSION postgis");
            // GEOS and PROJ, the libraries PostGIS loads from the system, both at work.
            assertEquals("POINT(111319 222684)", query(server,
                    "SELECT ST_AsText(ST_SnapToGrid(ST_Transform(ST_SetSRID(ST_MakePoint(1, 2), 4326), 3857), 1))"));
            assertEquals("POINT(1 2)", query(server, "SELECT ST_AsText('SRID=4326;POINT(1 2)'::geography)"));
            Path home = Path.of(Files.readString(server.dataDir().resolveSibling(ServerRegistry.HOME_FILE)).trim());
            assertTrue(Files.isRegularFile(home.resolve("lib/postgresql/postgis-3.so")), home.toString());
        }
    }

    private static String query(PgServer server, String sql) throws Exception {
        ConnectionConfig cfg = ConnectionConfig.builder().host(server.host()).port(server.port())
                .user(server.superuser().name()).password(server.superuser().password()).database("postgres")
                .sslMode(SslMode.DISABLE).build();
        PgConnection c = PgConnection.connect(cfg).toCompletableFuture().get(120, TimeUnit.SECONDS);
        try {
            var result = c.query(sql).toCompletableFuture().get(120, TimeUnit.SECONDS);
            return result.rows().isEmpty() ? null : result.rows().get(0).get(0);
        } finally {
            c.closeAsync().toCompletableFuture().get(120, TimeUnit.SECONDS);
        }
    }
}
