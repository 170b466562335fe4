package io.pgrepl.cli;

import static io.pgrepl.cli.Cli.query;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.Waits;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The CLI as a real child process on PostgreSQL 18: signals (while streaming, during a snapshot) and the PG* environment. */
class ProcessTest {
    private static PgServer server;

    @BeforeAll
    static void start() {
        server = PgServer.builder().version(18).start();
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
    }

    private static ProcessBuilder cli(String... args) {
        // A build started as a background job of a non-interactive shell inherits SIGINT ignored, and exec
        // keeps it so: the CLI then rightly never sees the test's SIGINT. env (which execs, keeping the pid)
        // gives the child the default disposition whatever launched the build.
        List<String> cmd = new ArrayList<>(List.of("env", "--default-signal=INT,TERM",
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "io.pgrepl.cli.Main"));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd);
    }

    /** Collected lines of a process stream; {@link #done()} waits for its end. */
    private record Lines(List<String> lines, Thread reader) {
        List<String> done() throws InterruptedException {
            reader.join(10_000);
            return lines;
        }
    }

    /** Collects the process's stdout lines on a thread. */
    private static Lines collect(java.io.InputStream in) {
        List<String> lines = new CopyOnWriteArrayList<>();
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
                for (String l; (l = r.readLine()) != null; ) lines.add(l);
            } catch (Exception ignored) {
                // the process ended
            }
        });
        t.setDaemon(true);
        t.start();
        return new Lines(lines, t);
    }

    @Test
    void sigtermConfirmsWhatWasPrintedAndExitsZero() throws Exception {
        server.sql("postgres", "CREATE TABLE ps (id int PRIMARY KEY); CREATE PUBLICATION ps_pub FOR TABLE ps");
        server.sql("postgres", "SELECT pg_create_logical_replication_slot('ps', 'pgoutput')");
        String created = query(server, "SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = 'ps'");
        for (int i = 1; i <= 3; i++) server.sql("postgres", "INSERT INTO ps VALUES (" + i + ")");
        // The default status interval (10 s) would not confirm anything before the signal.
        Process p = cli("stream", Cli.url(server), "-S", "ps", "-P", "ps_pub").redirectError(ProcessBuilder.Redirect.PIPE).start();
        Lines outLines = collect(p.getInputStream());
        Lines errLines = collect(p.getErrorStream());
        List<String> out = outLines.lines();
        List<String> err = errLines.lines();
        long deadline = System.nanoTime() + Waits.CEILING.toNanos();
        while (out.size() < 9 && System.nanoTime() < deadline && p.isAlive()) Thread.sleep(50);
        assertEquals(9, out.size(), "three transactions printed: " + out + " " + err);
        // SIGTERM through the handle: Process.destroy() would also close our ends of the pipes
        assertTrue(p.toHandle().destroy());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "exited");
        errLines.done();
        outLines.done();
        assertEquals(0, p.exitValue(), String.join("\n", err));
        List<JsonNode> lines = Cli.parseLines(String.join("\n", out));
        JsonNode last = lines.get(lines.size() - 1);
        assertEquals("commit", last.get("type").asText());
        assertEquals(3, lines.get(7).get("new").get("id").intValue());
        String confirmed = query(server, "SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = 'ps'");
        assertTrue(!confirmed.equals(created), "moved from " + created);
        assertEquals(last.get("end_lsn").asText(), confirmed, "the last printed commit is confirmed");
        assertTrue(String.join("\n", err).contains("pgrepl: stopping (signal TERM)"), String.join("\n", err));
        assertEquals("f", query(server, "SELECT active FROM pg_replication_slots WHERE slot_name = 'ps'"), "stream ended");
    }

    @Test
    void aReaderThatGoesAwayIsACleanEnd() throws Exception {
        server.sql("postgres", "CREATE TABLE pp (id int PRIMARY KEY, t text); CREATE PUBLICATION pp_pub FOR TABLE pp");
        server.sql("postgres", "SELECT pg_create_logical_replication_slot('pp', 'pgoutput')");
        String created = query(server, "SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = 'pp'");
        server.sql("postgres", "INSERT INTO pp VALUES (0, 'first')"); // begin, insert, commit: what head reads
        // ~1 MB in one transaction: more than a pipe holds, so a write is still under way when head exits
        server.sql("postgres", "INSERT INTO pp SELECT g, repeat('x', 100) FROM generate_series(1, 5000) g");
        ProcessBuilder pb = new ProcessBuilder("bash", "-c",
                "env --default-signal=INT,TERM \"$JAVA_BIN\" -cp \"$CP\" io.pgrepl.cli.Main \"$@\" | head -n 3;"
                        + " echo \"cli-exit=${PIPESTATUS[0]}\" >&2",
                "bash", "stream", Cli.url(server), "-S", "pp", "-P", "pp_pub");
        pb.environment().put("JAVA_BIN", Path.of(System.getProperty("java.home"), "bin", "java").toString());
        pb.environment().put("CP", System.getProperty("java.class.path"));
        Process p = pb.start();
        try {
            Lines outLines = collect(p.getInputStream());
            Lines errLines = collect(p.getErrorStream());
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the CLI ends when its reader does");
            String err = String.join("\n", errLines.done());
            assertEquals(0, p.exitValue(), err);
            assertTrue(err.contains("cli-exit=0"), err);
            assertTrue(!err.contains("cannot write"), err);
            List<JsonNode> lines = Cli.parseLines(String.join("\n", outLines.done()));
            assertEquals(List.of("begin", "insert", "commit"), lines.stream().map(n -> n.get("type").asText()).toList());
            String firstEnd = lines.get(2).get("end_lsn").asText();
            // Only what was written is confirmed: at most the first transaction, never the one cut off.
            String confirmed = query(server, "SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = 'pp'");
            assertTrue(confirmed.equals(created) || confirmed.equals(firstEnd), confirmed + " is " + created + " or " + firstEnd);
            long deadline = System.nanoTime() + Waits.CEILING.toNanos();
            while (!"f".equals(query(server, "SELECT active FROM pg_replication_slots WHERE slot_name = 'pp'"))) {
                assertTrue(System.nanoTime() < deadline, "the stream ended");
                Thread.sleep(50);
            }
        } finally {
            p.destroyForcibly();
        }
    }

    /** Runs {@code cmd} (a bash command line) with stdout and stderr on a pseudo-terminal, as at a prompt; returns what it printed. */
    static String onATerminal(String cmd, Map<String, String> env) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("script", "-qec", cmd, "/dev/null");
        pb.environment().put("SHELL", "/bin/bash");
        pb.environment().put("JAVA_BIN", Path.of(System.getProperty("java.home"), "bin", "java").toString());
        pb.environment().put("CP", System.getProperty("java.class.path"));
        pb.environment().putAll(env);
        Process p = pb.redirectErrorStream(true).start();
        try {
            Lines out = collect(p.getInputStream());
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "ended");
            String text = String.join("\n", out.done()).replace("\r", "");
            assertEquals(0, p.exitValue(), text);
            return text;
        } finally {
            p.destroyForcibly();
        }
    }

    static final String CLI = "env --default-signal=INT,TERM \"$JAVA_BIN\" -cp \"$CP\" io.pgrepl.cli.Main";

    @Test
    void slotListIsATableOnATerminalAndJsonWhenPiped() throws Exception {
        server.sql("postgres", "SELECT pg_create_logical_replication_slot('tbl_slot', 'pgoutput')");
        try {
            String table = onATerminal(CLI + " slot list \"$URL\"", Map.of("URL", Cli.url(server)));
            List<String> lines = table.lines().toList();
            assertTrue(lines.get(0).startsWith(" slot_name "), table);
            assertTrue(lines.get(0).matches(" slot_name +\\| type +\\| plugin +\\| database +\\| active +\\| lag +\\| wal_status .*"), table);
            assertTrue(lines.get(1).matches("-+(\\+-+)+"), table);
            assertTrue(lines.stream().anyMatch(l -> l.matches(" tbl_slot +\\| logical \\| pgoutput \\| postgres +\\| no +\\| (\\d+ B|\\d+\\.\\d [kMG]B) .*")), table);
            assertTrue(lines.get(lines.size() - 1).matches("\\(\\d+ slots?\\)"), table);
            // The same on a pipe: JSON, as scripts had it
            Process p = cli("slot", "list", Cli.url(server)).start();
            Lines out = collect(p.getInputStream());
            assertTrue(p.waitFor(60, TimeUnit.SECONDS));
            assertEquals(0, p.exitValue());
            JsonNode slots = Cli.parse(String.join("\n", out.done()));
            assertTrue(slots.isArray(), slots.toString());
            boolean found = false;
            for (JsonNode n : slots) found |= n.get("slot_name").asText().equals("tbl_slot");
            assertTrue(found, slots.toString());
            // --json on a terminal
            String json = onATerminal(CLI + " slot list --json \"$URL\"", Map.of("URL", Cli.url(server)));
            assertTrue(Cli.parse(json).isArray(), json);
        } finally {
            server.dropReplicationSlot("tbl_slot");
        }
    }

    @Test
    void progressShowsWhenStderrIsATerminalAndStdoutIsAFile() throws Exception {
        server.sql("postgres", "CREATE TABLE prg (id int PRIMARY KEY); INSERT INTO prg SELECT generate_series(1, 500);"
                + " CREATE PUBLICATION prg_pub FOR TABLE prg");
        Path dir = java.nio.file.Files.createTempDirectory("pgrepl-progress");
        Map<String, String> env = Map.of("URL", Cli.url(server), "OUT", dir.resolve("out.jsonl").toString());
        // stdout to a file, stderr on the terminal: System.console() is null here, progress must still show
        String first = onATerminal(CLI + " stream \"$URL\" -S prg -P prg_pub --create-slot --snapshot --idle-exit 1 > \"$OUT\"", env);
        assertTrue(first.contains("pgrepl: snapshot done: 1/1 tables, 500 rows"), first);
        String slotAt = query(server, "SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = 'prg'");
        assertTrue(first.contains("pgrepl: stopped after 0 changes; slot prg confirmed up to "), "snapshot rows are not changes: " + first);
        assertTrue(!first.contains("lag ?"), first);
        assertEquals(502, java.nio.file.Files.readAllLines(dir.resolve("out.jsonl")).size(), "snapshot_start, 500 reads, snapshot_end");

        server.sql("postgres", "INSERT INTO prg VALUES (501); INSERT INTO prg VALUES (502)");
        String second = onATerminal(CLI + " stream \"$URL\" -S prg -P prg_pub --idle-exit 1 > \"$OUT\"", env);
        String confirmed = query(server, "SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = 'prg'");
        assertTrue(!confirmed.equals(slotAt), confirmed);
        assertTrue(second.contains("pgrepl: stopped after 2 changes; slot prg confirmed up to " + confirmed + "\n")
                || second.endsWith("pgrepl: stopped after 2 changes; slot prg confirmed up to " + confirmed), second);
        assertTrue(!second.contains("lag ?"), second);
    }

    @Test
    void aSecondSignalDuringAStalledCleanStopExitsAtOnce() throws Exception {
        server.sql("postgres", "CREATE TABLE ps2 (id int PRIMARY KEY, t text); CREATE PUBLICATION ps2_pub FOR TABLE ps2");
        server.sql("postgres", "SELECT pg_create_logical_replication_slot('ps2', 'pgoutput')");
        String created = query(server, "SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = 'ps2'");
        // One transaction of ~1 MB of lines: far more than a pipe holds, so its writing cannot finish
        server.sql("postgres", "INSERT INTO ps2 SELECT g, repeat('x', 100) FROM generate_series(1, 5000) g");
        Process p = cli("stream", Cli.url(server), "-S", "ps2", "-P", "ps2_pub").start();
        try {
            stalledThenSecondSignal(p, created);
        } finally {
            p.destroyForcibly(); // a failed run leaves no process behind
        }
    }

    private static void stalledThenSecondSignal(Process p, String created) throws Exception {
        Lines errLines = collect(p.getErrorStream());
        // Read the start of the output, then nobody reads stdout: the clean stop cannot finish the transaction.
        byte[] start = p.getInputStream().readNBytes(1000);
        assertTrue(new String(start, StandardCharsets.UTF_8).startsWith("{\"type\":\"begin\""), new String(start, StandardCharsets.UTF_8));
        signal(p, "INT");
        long deadline = System.nanoTime() + Waits.CEILING.toNanos();
        while (errLines.lines().stream().noneMatch(l -> l.contains("pgrepl: stopping (signal INT); again to exit at once"))) {
            assertTrue(p.isAlive() && System.nanoTime() < deadline, "first signal seen: " + errLines.lines());
            Thread.sleep(20);
        }
        assertTrue(!p.waitFor(1, TimeUnit.SECONDS), "the first signal waits for the output (stalled)");
        assertTrue(p.toHandle().destroy()); // SIGTERM: the second signal
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), "the second signal ends it without waiting for the output");
        assertEquals(143, p.exitValue(), "128 + SIGTERM, as a shell reports a process killed by it; " + errLines.done());
        // Nothing of the unfinished transaction was confirmed: the next run prints it again.
        assertEquals(created, query(server, "SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = 'ps2'"));
        p.getInputStream().close();
    }

    private static void signal(Process p, String name) throws Exception {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(p.pid())).inheritIO().start();
        assertTrue(kill.waitFor(10, TimeUnit.SECONDS));
        assertEquals(0, kill.exitValue());
    }

    @Test
    void aSignalDuringTheSnapshotDropsTheSlotAndExitsOne() throws Exception {
        server.sql("postgres", "CREATE TABLE psn (id int PRIMARY KEY); INSERT INTO psn VALUES (1), (2);"
                + " CREATE PUBLICATION psn_pub FOR TABLE psn");
        ConnectionConfig plain = ConnectionConfig.parse(Cli.url(server)).toBuilder().replication(ReplicationMode.NONE).build();
        try (PgConnection holder = PgConnection.connect(plain).toCompletableFuture().get(60, TimeUnit.SECONDS)) {
            // A transaction with an xid, open while the slot is created: the slot waits for it to end.
            holder.simpleQuery("BEGIN; INSERT INTO psn VALUES (3)").toCompletableFuture().get(60, TimeUnit.SECONDS);
            Process p = cli("stream", Cli.url(server), "-S", "psn_slot", "-P", "psn_pub", "--create-slot", "--snapshot").start();
            Lines outLines = collect(p.getInputStream());
            Lines errLines = collect(p.getErrorStream());
            long deadline = System.nanoTime() + Waits.CEILING.toNanos();
            while (!"1".equals(query(server, "SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'psn_slot'"))) {
                assertTrue(p.isAlive() && System.nanoTime() < deadline, "the slot is being created: " + errLines.lines());
                Thread.sleep(20);
            }
            assertTrue(p.toHandle().destroy()); // SIGTERM while the slot waits, before any table is copied
            while (errLines.lines().stream().noneMatch(l -> l.contains("stopping (signal TERM)"))) {
                assertTrue(p.isAlive() && System.nanoTime() < deadline, "signal seen: " + errLines.lines());
                Thread.sleep(20);
            }
            holder.query("COMMIT").toCompletableFuture().get(60, TimeUnit.SECONDS);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "exited");
            String err = String.join("\n", errLines.done());
            assertEquals(1, p.exitValue(), err);
            assertTrue(err.contains("stopped before the initial snapshot was complete; slot \"psn_slot\" was dropped"), err);
            assertTrue(outLines.done().stream().noneMatch(l -> l.contains("snapshot_end")), "never complete");
            assertEquals("0", query(server, "SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'psn_slot'"));
        }
    }

    @Test
    void identifyWithoutUrlUsesThePgEnvironment() throws Exception {
        ProcessBuilder pb = cli("identify");
        Map<String, String> env = pb.environment();
        env.keySet().removeIf(k -> k.startsWith("PG"));
        env.put("PGHOST", server.host());
        env.put("PGPORT", Integer.toString(server.port()));
        env.put("PGUSER", server.replicationUser().name());
        env.put("PGPASSWORD", server.replicationUser().password());
        env.put("PGDATABASE", "postgres");
        env.put("PGSSLMODE", "disable");
        Process p = pb.start();
        Lines outLines = collect(p.getInputStream());
        Lines errLines = collect(p.getErrorStream());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        List<String> out = outLines.done();
        List<String> err = errLines.done();
        assertEquals(0, p.exitValue(), String.join("\n", err));
        JsonNode id = Cli.parse(String.join("\n", out));
        assertEquals("postgres", id.get("dbname").asText());
        assertEquals(server.version(), id.get("server_version").asText());
        assertTrue(err.stream().noneMatch(l -> l.contains("SLF4J")), "no logging-binding warning: " + err);
    }
}
