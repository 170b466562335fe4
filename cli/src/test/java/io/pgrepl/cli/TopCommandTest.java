package io.pgrepl.cli;

import static io.pgrepl.cli.Cli.query;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.LogicalStreamHandler;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.Waits;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code pgrepl top} as a person uses it: the real CLI process in a tmux pane of 160x40, keys sent with
 * send-keys, the screen read with capture-pane; and {@code --once} for scripts. One PostgreSQL 18 with
 * four slots: one streamed (active, with a client address), one lagging several MB, two caught up.
 */
class TopCommandTest {
    private static PgServer server;
    private static PgConnection streaming;
    private static LogicalReplicationStream stream;

    @BeforeAll
    static void start() throws Exception {
        server = PgServer.builder().version(18).start();
        server.sql("postgres", "CREATE TABLE top_t (id int PRIMARY KEY, v text); CREATE PUBLICATION top_pub FOR TABLE top_t");
        for (String slot : List.of("top_a", "top_b", "top_lag", "top_live")) {
            server.sql("postgres", "SELECT pg_create_logical_replication_slot('" + slot + "', 'pgoutput')");
        }
        server.sql("postgres", "INSERT INTO top_t SELECT g, repeat('x', 500) FROM generate_series(1, 20000) g");
        // Everyone but top_lag is caught up.
        server.sql("postgres", "SELECT pg_replication_slot_advance('top_a', pg_current_wal_lsn())");
        server.sql("postgres", "SELECT pg_replication_slot_advance('top_b', pg_current_wal_lsn())");
        server.sql("postgres", "SELECT pg_replication_slot_advance('top_live', pg_current_wal_lsn())");
        streaming = PgConnection.connect(ConnectionConfig.parse(Cli.url(server)).toBuilder()
                .replication(ReplicationMode.DATABASE).build()).toCompletableFuture().get(60, TimeUnit.SECONDS);
        stream = streaming.startLogical(LogicalReplicationOptions.builder("top_live").publications("top_pub")
                .statusInterval(Duration.ofMillis(500)).build(), new LogicalStreamHandler() {});
        stream.started().toCompletableFuture().get(60, TimeUnit.SECONDS);
    }

    @AfterAll
    static void stop() {
        if (streaming != null) streaming.close();
        if (server != null) server.close();
    }

    @Test
    void onceJsonIsAnArrayWithTheServersNumbers() throws Exception {
        String lagBefore = query(server, "SELECT (pg_current_wal_lsn() - confirmed_flush_lsn)::bigint FROM pg_replication_slots"
                + " WHERE slot_name = 'top_lag'");
        Cli.Result r = Cli.run("top", "--once", "--json", Cli.url(server));
        String lagAfter = query(server, "SELECT (pg_current_wal_lsn() - confirmed_flush_lsn)::bigint FROM pg_replication_slots"
                + " WHERE slot_name = 'top_lag'");
        assertEquals(0, r.rc(), r.err());
        JsonNode arr = Cli.JSON.readTree(r.out());
        assertTrue(arr.isArray(), r.out());
        Map<String, JsonNode> bySlot = new HashMap<>();
        arr.forEach(n -> bySlot.put(n.get("slot_name").asText(), n));
        assertEquals(List.of("top_a", "top_b", "top_lag", "top_live"), bySlot.keySet().stream().sorted().toList());
        JsonNode lag = bySlot.get("top_lag");
        if (lagBefore.equals(lagAfter)) assertEquals(Long.parseLong(lagAfter), lag.get("lag_bytes").asLong());
        assertTrue(lag.get("lag_bytes").asLong() > 5_000_000, lag.toString());
        assertEquals("pgoutput", lag.get("plugin").asText());
        assertFalse(lag.get("active").asBoolean());
        assertEquals("reserved", lag.get("wal_status").asText());
        JsonNode live = bySlot.get("top_live");
        assertTrue(live.get("active").asBoolean());
        assertEquals(query(server, "SELECT active_pid FROM pg_replication_slots WHERE slot_name = 'top_live'"),
                live.get("active_pid").asText());
        assertEquals("127.0.0.1", live.get("client_addr").asText());
        assertTrue(lag.get("spill_bytes").isNumber(), "18 has pg_stat_replication_slots");
    }

    @Test
    void onceTableIsPlainWhenPiped() {
        Cli.Result r = Cli.run("top", "--once", Cli.url(server));
        assertEquals(0, r.rc(), r.err());
        List<String> lines = r.out().lines().toList();
        assertTrue(lines.get(0).startsWith("SLOT"), lines.get(0));
        assertEquals(5, lines.size(), r.out());
        assertTrue(lines.get(3).startsWith("top_lag ") && lines.get(3).contains(" MB"), lines.get(3));
        assertFalse(r.out().contains("\033"), "no escape sequences when not a terminal");
    }

    @Test
    void aWrongPasswordIsAnErrorNotARetryLoop() {
        Cli.Result r = Cli.run("top", Cli.url(server).replace(server.superuser().password(), "wrong-pw"));
        assertEquals(1, r.rc(), r.out());
        assertTrue(r.err().startsWith("pgrepl top: "), r.err());
        assertFalse(r.err().contains("wrong-pw"), "no secret in the message");
    }

    /** A tmux server of its own running {@code pgrepl top URL} in a 160x40 pane; the script records the exit code and the tty modes. */
    private record Pane(String socket, Path dir) implements AutoCloseable {
        static Pane start() throws Exception {
            assumeTrue(tmuxInstalled(), "tmux is not installed");
            Path dir = Files.createTempDirectory("pgrepl-top");
            Path script = dir.resolve("run.sh");
            // A trap, not an ignored SIGINT: the shell outlives Ctrl-C to record the exit code, and the CLI (exec resets
            // handlers to the default, but keeps ignored signals ignored) still gets SIGINT.
            Files.writeString(script, "#!/bin/sh\ntrap 'true' INT\n'" + Path.of(System.getProperty("java.home"), "bin", "java") + "' -cp '"
                    + System.getProperty("java.class.path") + "' io.pgrepl.cli.Main top '" + Cli.url(server) + "' 2> '"
                    + dir.resolve("err") + "'\nrc=$?\nstty -a > '" + dir.resolve("stty") + "'\necho $rc > '" + dir.resolve("rc")
                    + "'\nsleep 60\n");
            Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
            Pane p = new Pane("pgrepl-top-" + ProcessHandle.current().pid() + "-" + System.nanoTime(), dir);
            p.tmux("new-session", "-d", "-x", "160", "-y", "40", "-s", "top", "-e", "LANG=C.UTF-8", script.toString());
            return p;
        }

        void keys(String... keys) throws Exception {
            List<String> args = new ArrayList<>(List.of("send-keys", "-t", "top"));
            args.addAll(List.of(keys));
            tmux(args.toArray(String[]::new));
        }

        String waitForScreen(Predicate<String> cond) throws Exception {
            long deadline = System.nanoTime() + Waits.CEILING.toNanos();
            String s = capture();
            while (!cond.test(s)) {
                assertTrue(System.nanoTime() < deadline, "screen never matched:\n" + s);
                Thread.sleep(100);
                s = capture();
            }
            return s;
        }

        /** Waits for the CLI to exit; its exit code. */
        int exitCode() throws Exception {
            Path rc = dir.resolve("rc");
            long deadline = System.nanoTime() + Waits.CEILING.toNanos();
            while (!Files.exists(rc) || Files.readString(rc).isBlank()) {
                assertTrue(System.nanoTime() < deadline, "top did not exit: " + capture());
                Thread.sleep(50);
            }
            return Integer.parseInt(Files.readString(rc).trim());
        }

        /** The pane's tty modes after the CLI exited, as {@code stty -a} prints them. */
        String ttyModes() throws Exception {
            return Files.readString(dir.resolve("stty"));
        }

        String err() throws Exception {
            return Files.readString(dir.resolve("err"));
        }

        String capture() throws Exception {
            Process p = new ProcessBuilder("tmux", "-L", socket, "capture-pane", "-p", "-t", "top").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor(10, TimeUnit.SECONDS);
            return out;
        }

        private void tmux(String... args) throws Exception {
            List<String> cmd = new ArrayList<>(List.of("tmux", "-L", socket));
            cmd.addAll(List.of(args));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0, String.join(" ", cmd) + ": " + out);
        }

        @Override
        public void close() throws Exception {
            new ProcessBuilder("tmux", "-L", socket, "kill-server").redirectErrorStream(true).start().waitFor(10, TimeUnit.SECONDS);
        }

        private static boolean tmuxInstalled() {
            try {
                return new ProcessBuilder("tmux", "-V").redirectErrorStream(true).start().waitFor() == 0;
            } catch (Exception e) {
                return false;
            }
        }
    }

    @Test
    void fullScreenUnderTmuxSortsFiltersAndQuits() throws Exception {
        try (Pane pane = Pane.start()) {
            String screen = pane.waitForScreen(s -> s.contains("top_live") && s.contains("top_lag") && s.contains("RETAINED_TREND"));
            List<String> rows = rows(screen);
            assertEquals(List.of("top_a", "top_b", "top_lag", "top_live"), firstWords(rows), screen);
            String liveRow = rows.get(3);
            assertTrue(liveRow.contains("yes") && liveRow.contains("127.0.0.1"), liveRow);

            pane.keys("s"); // sort by lag, largest first
            screen = pane.waitForScreen(s -> s.contains("sort: lag desc"));
            assertEquals("top_lag", firstWords(rows(screen)).get(0), screen);

            pane.keys("/", "l", "i", "v", "e", "Enter");
            screen = pane.waitForScreen(s -> s.contains("filter: live") && !s.contains("filter: live_"));
            assertEquals(List.of("top_live"), firstWords(rows(screen)), screen);

            pane.keys("q");
            assertEquals(0, pane.exitCode(), pane.err());
            assertTrue(pane.ttyModes().matches("(?s).*(^|\\s)icanon\\s.*") && pane.ttyModes().matches("(?s).*(^|\\s)echo\\s.*"),
                    "line mode and echo restored: " + pane.ttyModes());
        }
    }

    @Test
    void ctrlCUnderTmuxRestoresTheTerminal() throws Exception {
        try (Pane pane = Pane.start()) {
            pane.waitForScreen(s -> s.contains("top_live"));
            pane.keys("C-c");
            assertEquals(130, pane.exitCode(), pane.err());
            assertTrue(pane.ttyModes().matches("(?s).*(^|\\s)icanon\\s.*") && pane.ttyModes().matches("(?s).*(^|\\s)echo\\s.*"),
                    "line mode and echo restored: " + pane.ttyModes());
            assertFalse(pane.capture().contains("RETAINED_TREND"), "back from the alternate screen");
        }
    }

    /** Slot rows: the lines after the header, up to the first blank one. */
    private static List<String> rows(String screen) {
        List<String> out = new ArrayList<>();
        boolean inRows = false;
        for (String l : screen.lines().toList()) {
            if (l.startsWith("SLOT ")) {
                inRows = true;
            } else if (inRows) {
                if (!l.startsWith("top_")) break;
                out.add(l);
            }
        }
        return out;
    }

    private static List<String> firstWords(List<String> rows) {
        return rows.stream().map(r -> r.split("\\s+")[0]).toList();
    }
}
