package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.kafka.connect.ConnectHarness.Change;
import io.pgrepl.testkit.OAuthValidator;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.PgVersions;
import io.pgrepl.testkit.secrets.TestSecrets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The OAuth, standby-primary and slot-guard settings on a real worker, one Kafka cluster and one PostgreSQL 18 primary
 * (with the kit's OAuth validator module when a C compiler is there) and its hot standby for the
 * class: streaming from the standby with the slot created there through the primary's
 * pg_log_standby_snapshot(); the slot guard failing the task before the slot is lost; a token file
 * signing the task in with OAUTHBEARER.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class StandbyOAuthGuardTest {
    private EmbeddedConnectCluster connect;
    private PgServer primary;
    private PgServer standby;
    private OAuthValidator validator;
    private Path dir;

    @BeforeAll
    void start() throws Exception {
        Assumptions.assumeTrue(PgVersions.matrix().contains(18), "decoding on a standby (16+) and OAuth (18): run on 18");
        List.of(OAuthValidator.GOOD, OAuthValidator.GOOD_2).forEach(TestSecrets::register);
        validator = OAuthValidator.compile().orElse(null);
        io.pgrepl.testkit.PgServerSpec.Builder b = PgServer.builder().version(18);
        if (validator != null) b.setting("oauth_validator_libraries", validator.module().toString());
        primary = b.start();
        primary.sql("postgres", "CREATE TABLE sk_rows (id int PRIMARY KEY, v text); CREATE PUBLICATION sk_pub FOR TABLE sk_rows;"
                + " CREATE TABLE gk_rows (id int PRIMARY KEY); CREATE PUBLICATION gk_pub FOR TABLE gk_rows;"
                + " CREATE TABLE gk_unpublished (id int, pad text);"
                + " CREATE TABLE ok_rows (id int PRIMARY KEY); CREATE PUBLICATION ok_pub FOR TABLE ok_rows");
        standby = primary.startStandby("sk_phys");
        dir = Files.createTempDirectory("pgrepl-sog");
        connect = ConnectHarness.start("sog", 1, Map.of());
    }

    @AfterAll
    void stop() throws Exception {
        if (connect != null) connect.stop();
        if (standby != null) standby.close();
        if (primary != null) primary.close();
        if (validator != null) validator.close();
        if (dir != null) {
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : files.toList()) Files.delete(f);
            }
            Files.delete(dir);
        }
    }

    private static Map<String, String> config(PgServer pg, String prefix, String publication) {
        Map<String, String> c = EndToEndTest.connectorConfig(pg, prefix);
        c.put("publication.name", publication);
        c.put("publication.autocreate.mode", "disabled");
        c.remove("table.include.list");
        return c;
    }

    private static String scalar(PgServer pg, String sql) throws Exception {
        return String.valueOf(EndToEndTest.query(pg, sql).get(0).get(0));
    }

    private static void waitUntil(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (!condition.getAsBoolean()) {
            assertTrue(System.nanoTime() < deadline, "timed out waiting for " + what);
            Thread.sleep(100); // a poll interval between checks of a remote state, not a wait for an outcome
        }
    }

    private static boolean exists(PgServer pg, String slot) {
        try {
            return "1".equals(scalar(pg, "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + slot + "'"));
        } catch (Exception e) {
            return false;
        }
    }

    private long standbySnapshotsLogged() throws Exception {
        try (Stream<String> lines = Files.lines(primary.logFile())) {
            return lines.filter(l -> l.contains("statement: SELECT pg_catalog.pg_log_standby_snapshot()")).count();
        }
    }

    private static TreeSet<Integer> ids(List<Change> changes) {
        TreeSet<Integer> ids = new TreeSet<>();
        for (Change c : changes) ids.add(((Number) c.value().getStruct("after").get("id")).intValue());
        return ids;
    }

    @Test
    void streamsFromAStandbyWhoseSlotThePrimaryHelpedCreate() throws Exception {
        Map<String, String> c = config(standby, "sk", "sk_pub");
        c.put("database.primary.url", primary.url(primary.superuser(), "postgres") + "?options=-c%20log_statement%3Dall");
        c.put("database.primary.log.standby.snapshot", "true");
        long before = standbySnapshotsLogged();
        connect.configureConnector("sk", c);
        // The slot is listed while CREATE_REPLICATION_SLOT still waits: wait for the stream.
        waitUntil("the task streaming from the standby's slot", () -> {
            try {
                return "t".equals(scalar(standby, "SELECT active FROM pg_replication_slots WHERE slot_name = 'sk_slot'"));
            } catch (Exception e) {
                return false;
            }
        });
        waitUntil("the primary's log to show pgrepl's pg_log_standby_snapshot()", () -> {
            try {
                return standbySnapshotsLogged() > before;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        assertFalse(exists(primary, "sk_slot"), "the slot is the standby's own");
        for (int tx = 0; tx < 5; tx++) {
            primary.sql("postgres", "INSERT INTO sk_rows SELECT g, 'v' || g FROM generate_series(" + (tx * 10 + 1) + ", " + (tx * 10 + 10) + ") g");
        }
        List<Change> all = ConnectHarness.readUntil(connect, "\\Qsk.public.sk_rows\\E", Map.of(), l -> ids(l).size() == 50,
                Duration.ofSeconds(90));
        assertEquals(50, all.size(), "each row once");
        assertEquals(new TreeSet<>(java.util.stream.IntStream.rangeClosed(1, 50).boxed().toList()), ids(all));
        assertTrue(all.stream().allMatch(ch -> "c".equals(ch.op())), "inserts");
        assertEquals("RUNNING", connect.connectorStatus("sk").tasks().get(0).state());
        connect.deleteConnector("sk");
    }

    @Test
    void theSlotGuardFailsTheTaskBeforeTheSlotIsLost() throws Exception {
        Map<String, String> c = config(primary, "gk", "gk_pub");
        c.put("slot.guard.interval.ms", "200");
        c.put("slot.guard.retained.wal.warn.bytes", String.valueOf(1L << 20));
        c.put("slot.guard.retained.wal.fail.bytes", String.valueOf(4L << 20));
        connect.configureConnector("gk", c);
        waitUntil("the task streaming", () -> {
            try {
                return "t".equals(scalar(primary, "SELECT active FROM pg_replication_slots WHERE slot_name = 'gk_slot'"));
            } catch (Exception e) {
                return false;
            }
        });
        // The worker's status may list the task a moment after its slot went active.
        waitUntil("the task's status RUNNING, nothing retained yet", () -> {
            var tasks = connect.connectorStatus("gk").tasks();
            return !tasks.isEmpty() && "RUNNING".equals(tasks.get(0).state());
        });
        // WAL the publication does not cover: nothing reaches Kafka, no heartbeats confirm it, the slot holds it.
        primary.sql("postgres", "INSERT INTO gk_unpublished SELECT g, repeat('x', 200) FROM generate_series(1, 40000) g");
        waitUntil("the task to fail", () -> "FAILED".equals(connect.connectorStatus("gk").tasks().get(0).state()));
        String trace = connect.connectorStatus("gk").tasks().get(0).trace();
        assertTrue(trace.contains("slot guard") && trace.contains("gk_slot") && trace.contains("retained WAL > 4.0 MB"), trace);
        assertTrue(trace.contains("SlotGuardTrippedException"), trace);
        // Before the server would lose it: the slot is still there, its WAL reserved.
        assertEquals("reserved", scalar(primary, "SELECT wal_status FROM pg_replication_slots WHERE slot_name = 'gk_slot'"));
        connect.deleteConnector("gk");
    }

    @Test
    void aTokenFileSignsTheTaskIn() throws Exception {
        Assumptions.assumeTrue(validator != null, "no C compiler (cc) to build the OAuth validator module");
        primary.sql("postgres", "CREATE ROLE oauth_k LOGIN REPLICATION");
        validator.trust(primary, "oauth_k");
        Path token = Files.writeString(dir.resolve("token"), OAuthValidator.GOOD + "\n");
        Map<String, String> c = config(primary, "ok", "ok_pub");
        c.put("database.url", "postgresql://oauth_k@127.0.0.1:" + primary.port() + "/postgres?require_auth=oauth");
        c.remove("database.password");
        c.put("database.oauth.token.file", token.toString());
        connect.configureConnector("ok", c);
        waitUntil("the task streaming", () -> {
            try {
                return "t".equals(scalar(primary, "SELECT active FROM pg_replication_slots WHERE slot_name = 'ok_slot'"));
            } catch (Exception e) {
                return false;
            }
        });
        assertEquals("oauth_k", scalar(primary, "SELECT usename FROM pg_stat_activity WHERE pid ="
                + " (SELECT active_pid FROM pg_replication_slots WHERE slot_name = 'ok_slot')"), "the task signed in with the token");
        primary.sql("postgres", "INSERT INTO ok_rows SELECT generate_series(1, 20)");
        List<Change> all = ConnectHarness.readUntil(connect, "\\Qok.public.ok_rows\\E", Map.of(), l -> ids(l).size() == 20,
                Duration.ofSeconds(90));
        assertEquals(20, ids(all).size());
        connect.deleteConnector("ok");

        Map<String, String> both = new java.util.HashMap<>(c);
        both.put("database.oauth.token.provider.class", String.class.getName());
        assertThrows(ConfigException.class, () -> new PgreplConnectorConfig(both).connectionConfig());
    }
}
