package io.pgrepl.debezium.compat;

import io.pgrepl.testkit.ExtensionFiles;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.PgServerSpec;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.Properties;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * The server Debezium's integration tests run against, started before any test class is found (their
 * TestHelper reads {@code database.*} system properties) and stopped when the JUnit session closes.
 * Active only where the build sets {@code debezium.compat.run}, the directory this run's reports go
 * to: {@code run.properties} there records the server and which {@code PostgresConnector} the tests got.
 */
public final class CompatServer implements LauncherSessionListener {
    /** Debezium's test image: user and database {@code postgres}, password {@code postgres}, Samoa time. */
    static final String PASSWORD = "postgres";

    private PgServer server;

    @Override
    public void launcherSessionOpened(LauncherSession session) {
        String run = System.getProperty("debezium.compat.run");
        if (run == null || server != null) return;
        int major = Integer.parseInt(System.getProperty("debezium.compat.pg.version", "18"));
        PgServerSpec.Builder spec = PgServer.builder();
        // Debezium's image has PostGIS, and RecordsStreamProducerIT, RecordsSnapshotProducerIT and one test of
        // PostgresSchemaIT create its types; Debian packages it for one major (bookworm: 15).
        ExtensionFiles postgis = ExtensionFiles.debian("postgis", major);
        if (postgis.installed()) {
            spec.extension(postgis);
        } else {
            System.err.println("debezium-compat: no PostGIS for PostgreSQL " + major + " (" + postgis.controlDir()
                    + "/postgis.control): the tests that create PostGIS types fail for both connectors; on Debian 12 "
                    + "apt-get install postgresql-15-postgis-3 and run with -Dcompat.pg.version=15");
        }
        server = spec
                .version(major)
                .superuserPassword(PASSWORD)
                .setting("timezone", "US/Samoa")
                // A test that fails between its own statements can leave a transaction open, whose locks
                // would hold every later test's DDL for good.
                .setting("idle_in_transaction_session_timeout", "60s")
                .start();
        System.setProperty("database.hostname", server.host());
        System.setProperty("database.port", Integer.toString(server.port()));
        System.setProperty("database.user", "postgres");
        System.setProperty("database.password", PASSWORD);
        System.setProperty("database.dbname", "postgres");
        writeRunRecord(Path.of(run), postgis.installed() ? postgisVersion(postgis) : "none");
    }

    /** The packaged PostGIS version, from its control file's {@code default_version}. */
    private static String postgisVersion(ExtensionFiles postgis) {
        try {
            for (String line : Files.readAllLines(postgis.controlDir().resolve("postgis.control"))) {
                String l = line.strip();
                if (l.startsWith("default_version")) return l.replaceAll("^default_version\\s*=\\s*'?([^']*)'?$", "$1");
            }
            return "?";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public void launcherSessionClosed(LauncherSession session) {
        if (server != null) {
            server.close();
            server = null;
        }
    }

    private void writeRunRecord(Path dir, String postgis) {
        Properties p = new Properties();
        p.setProperty("connector.expected", System.getProperty("debezium.compat.connector", "pgrepl"));
        p.setProperty("connector.loaded", loadedConnector());
        p.setProperty("server.version", server.version());
        p.setProperty("server.major", Integer.toString(server.majorVersion()));
        p.setProperty("server.postgis", postgis);
        p.setProperty("run.date", java.time.LocalDate.now(java.time.ZoneOffset.UTC).toString());
        try {
            Files.createDirectories(dir);
            // A report left by an earlier run of other classes would count as this run's.
            try (var old = Files.newDirectoryStream(dir, "TEST-*.xml")) {
                for (Path f : old) Files.delete(f);
            }
            try (OutputStream out = Files.newOutputStream(dir.resolve(RunResults.RUN_RECORD))) {
                p.store(out, "debezium-compat run");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code pgrepl} when the test class path gives the shim, {@code debezium} when Debezium's jar. */
    static String loadedConnector() {
        try {
            Class<?> c = Class.forName("io.debezium.connector.postgresql.PostgresConnector", false,
                    CompatServer.class.getClassLoader());
            for (java.lang.reflect.Field f : c.getDeclaredFields()) {
                if (f.getType().getName().equals("io.pgrepl.kafka.connect.PgreplSourceConnector")) return "pgrepl";
            }
            CodeSource source = c.getProtectionDomain().getCodeSource();
            String where = source == null ? "?" : source.getLocation().toString();
            return where.contains("debezium-connector-postgres") ? "debezium" : "unknown: " + where;
        } catch (ClassNotFoundException e) {
            return "none";
        }
    }
}
