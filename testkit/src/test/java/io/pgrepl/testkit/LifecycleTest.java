package io.pgrepl.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ConnectException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Stop, start, restart, reload, logs and cleanup on one default-version server. */
class LifecycleTest {
    private static PgServer server;

    @BeforeAll
    static void startServer() {
        server = PgServer.builder().auth(AuthMethod.PASSWORD)
                .setting("logical_decoding_work_mem", "64kB")
                .setting("wal_sender_timeout", "2s")
                .start();
    }

    @AfterAll
    static void closeServer() {
        server.close();
    }

    @Test
    void startsWithKitAndSpecSettings() throws Exception {
        assertEquals(PgVersions.defaultVersion(), server.majorVersion());
        Map<String, String> settings = server.settings();
        assertEquals("logical", settings.get("wal_level"));
        assertEquals("64kB", settings.get("logical_decoding_work_mem"));
        assertEquals("2s", settings.get("wal_sender_timeout"));
        assertEquals(Integer.toString(server.port()), settings.get("port"));
        String conf = Files.readString(server.dataDir().resolve("pgrepl.conf"));
        assertTrue(conf.contains("wal_level = 'logical'"), conf);
        assertTrue(conf.contains("listen_addresses = '127.0.0.1'"), conf);
        assertTrue(WireProbe.as(server.superuser()).run(server).authenticated());
    }

    @Test
    void logFileHasTheServerLog() throws Exception {
        String log = Files.readString(server.logFile());
        assertTrue(log.contains("database system is ready to accept connections"), log);
        assertTrue(log.contains("listening on IPv4 address \"127.0.0.1\", port " + server.port()), log);
    }

    @Test
    void stopFastThenStartAgainOnTheSamePort() throws Exception {
        int port = server.port();
        server.stop(StopMode.FAST);
        assertFalse(server.isRunning());
        assertThrows(ConnectException.class, () -> WireProbe.as(server.superuser()).run(server));
        server.start();
        assertTrue(server.isRunning());
        assertEquals(port, server.port());
        assertTrue(WireProbe.as(server.superuser()).run(server).authenticated());
    }

    @Test
    void stopImmediateMeansCrashRecoveryOnStart() throws Exception {
        server.stop(StopMode.IMMEDIATE);
        server.start();
        assertTrue(WireProbe.as(server.replicationUser()).replication("database").run(server).authenticated());
        String log = Files.readString(server.logFile());
        assertTrue(log.contains("not properly shut down") || log.contains("interrupted"), log);
    }

    @Test
    void restartGivesANewPostmaster() throws Exception {
        long before = ((EmbeddedPgServer) server).postmasterPid().orElseThrow();
        server.restart();
        long after = ((EmbeddedPgServer) server).postmasterPid().orElseThrow();
        assertNotEquals(before, after);
        assertFalse(ProcessHandle.of(before).map(ProcessHandle::isAlive).orElse(false));
        assertTrue(WireProbe.as(server.plainUser()).run(server).authenticated());
    }

    @Test
    void reloadAppliesSettingsToNewConnections() throws Exception {
        // TimeZone is reported in ParameterStatus at startup: visible without a client.
        server.reload(Map.of("timezone", "Asia/Tokyo"));
        assertEquals("Asia/Tokyo", WireProbe.as(server.superuser()).run(server).parameters().get("TimeZone"));
        server.reload(Map.of("timezone", "America/Lima"));
        assertEquals("America/Lima", WireProbe.as(server.superuser()).run(server).parameters().get("TimeZone"));
        assertEquals("America/Lima", server.settings().get("timezone"));
    }

    @Test
    void runsAsTheUnprivilegedUserWhenRoot() throws IOException {
        long pid = ((EmbeddedPgServer) server).postmasterPid().orElseThrow();
        String uid = uidOf(Paths.get("/proc", Long.toString(pid), "status"));
        if (ServerUser.isRoot()) {
            assertNotEquals("0", uid, "postgres must not run as root");
            assertEquals(ServerUser.NAME, Files.getOwner(server.dataDir()).getName());
            assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(
                    Files.getPosixFilePermissions(server.dataDir().resolve("pgrepl.conf"))));
        } else {
            assertEquals(uidOf(Paths.get("/proc/self/status")), uid);
        }
    }

    @Test
    void sqlWithoutAnExecutorSaysSoClearly() {
        ClassLoader original = Thread.currentThread().getContextClassLoader();
        // ServiceLoader looks in the context loader; one without resources finds no executor.
        Thread.currentThread().setContextClassLoader(new ClassLoader(null) {});
        try {
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> server.sql("postgres", "SELECT 1"));
            assertTrue(e.getMessage().contains("SqlExecutor"), e.getMessage());
        } finally {
            Thread.currentThread().setContextClassLoader(original);
        }
    }

    @Test
    void sqlUsesTheExecutorFoundByServiceLoader() throws Exception {
        RecordingSqlExecutor.CALLS.clear();
        server.sql("postgres", "CREATE TABLE t (id int)");
        assertEquals(List.of(server.port() + "/postgres/CREATE TABLE t (id int)"), RecordingSqlExecutor.CALLS);
    }

    @Test
    void closeLeavesNothingBehind() throws Exception {
        PgServer other = PgServer.builder().auth(AuthMethod.TRUST).start();
        Path dir = ((EmbeddedPgServer) other).serverDir();
        Leftovers leftovers = Leftovers.before(other);
        other.close();
        leftovers.assertGone();
        assertFalse(Files.exists(dir));
        other.close(); // idempotent
        assertThrows(IllegalStateException.class, other::start);
    }

    @Test
    void hostsslOnlyRejectsPlaintextButServesTls() throws Exception {
        try (PgServer tls = PgServer.builder().auth(AuthMethod.SCRAM_SHA_256)
                .tls(TlsOptions.ecdsaSha384().hostsslOnly(true)).start()) {
            assertEquals('S', WireProbe.sslAnswer(tls));
            WireProbe.Result plain = WireProbe.as(tls.replicationUser()).run(tls);
            assertEquals("28000", plain.sqlState(), plain::toString);
            WireProbe.Result overTls = WireProbe.as(tls.replicationUser()).tls(tls.tls().orElseThrow()).run(tls);
            assertEquals(List.of(WireProbe.AUTH_SASL), overTls.authRequests());
            assertTrue(overTls.saslMechanisms().contains("SCRAM-SHA-256"));
            if (tls.majorVersion() >= 11) {
                assertTrue(overTls.saslMechanisms().contains("SCRAM-SHA-256-PLUS"), overTls.saslMechanisms()::toString);
            }
            assertTrue(List.of("TLSv1.2", "TLSv1.3").contains(overTls.tlsProtocol()));
        }
    }

    private static String uidOf(Path status) throws IOException {
        for (String line : Files.readAllLines(status)) {
            if (line.startsWith("Uid:")) {
                return line.substring(4).trim().split("\\s+")[1];
            }
        }
        throw new AssertionError("no Uid in " + status);
    }
}
