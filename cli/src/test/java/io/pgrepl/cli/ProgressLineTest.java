package io.pgrepl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.Waits;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

/**
 * {@code pgrepl stream} in a real terminal (a tmux pane), stopped with Ctrl-C: the progress line
 * redrawn in place is erased, with the {@code ^C} the terminal echoed, before the stopping line and
 * the last line (PostgreSQL 18). Skipped where tmux is not installed.
 */
class ProgressLineTest {
    @Test
    void ctrlCLeavesTheLastLineAloneOnTheScreen() throws Exception {
        assumeTrue(tmuxInstalled(), "tmux is not installed");
        try (PgServer server = PgServer.builder().version(18).start()) {
            server.sql("postgres", "CREATE TABLE pl (id int PRIMARY KEY); CREATE PUBLICATION pl_pub FOR TABLE pl");
            server.sql("postgres", "SELECT pg_create_logical_replication_slot('pl', 'pgoutput')");
            server.sql("postgres", "INSERT INTO pl SELECT generate_series(1, 5)");
            Path dir = Files.createTempDirectory("pgrepl-progress");
            Path script = dir.resolve("run.sh");
            // stdout to a file (the usual case), stderr on the terminal: the progress line is drawn there.
            Files.writeString(script, "#!/bin/sh\ntrap 'true' INT\n'" + Path.of(System.getProperty("java.home"), "bin", "java")
                    + "' -cp '" + System.getProperty("java.class.path") + "' io.pgrepl.cli.Main stream '" + Cli.url(server)
                    + "' -S pl -P pl_pub > '" + dir.resolve("out") + "'\necho \"rc=$?\"\nsleep 60\n");
            Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwx------"));
            String socket = "pgrepl-progress-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
            try {
                tmux(socket, "new-session", "-d", "-x", "120", "-y", "10", "-s", "pl", script.toString());
                waitForScreen(socket, s -> s.contains("pgrepl: 5 changes"));
                tmux(socket, "send-keys", "-t", "pl", "C-c");
                String screen = waitForScreen(socket, s -> s.contains("rc="));
                List<String> lines = screen.lines().filter(l -> !l.isBlank()).toList();
                assertEquals(3, lines.size(), screen);
                assertEquals("pgrepl: stopping (signal INT); again to exit at once", lines.get(0).strip(), screen);
                assertTrue(lines.get(1).matches("pgrepl: stopped after 5 changes; slot pl confirmed up to [0-9A-F]+/[0-9A-F]+\\s*"),
                        screen);
                assertEquals("rc=0", lines.get(2).strip(), screen);
                assertFalse(screen.contains("^C"), screen);
            } finally {
                new ProcessBuilder("tmux", "-L", socket, "kill-server").redirectErrorStream(true).start().waitFor(10, TimeUnit.SECONDS);
            }
        }
    }

    private static String waitForScreen(String socket, Predicate<String> cond) throws Exception {
        long deadline = System.nanoTime() + Waits.CEILING.toNanos();
        String s = capture(socket);
        while (!cond.test(s)) {
            assertTrue(System.nanoTime() < deadline, "screen never matched:\n" + s);
            Thread.sleep(100);
            s = capture(socket);
        }
        return s;
    }

    private static String capture(String socket) throws Exception {
        Process p = new ProcessBuilder("tmux", "-L", socket, "capture-pane", "-p", "-t", "pl").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(10, TimeUnit.SECONDS);
        return out;
    }

    private static void tmux(String socket, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("tmux", "-L", socket));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0, String.join(" ", cmd) + ": " + out);
    }

    private static boolean tmuxInstalled() {
        try {
            return new ProcessBuilder("tmux", "-V").redirectErrorStream(true).start().waitFor() == 0;
        } catch (Exception e) {
            return false;
        }
    }
}
