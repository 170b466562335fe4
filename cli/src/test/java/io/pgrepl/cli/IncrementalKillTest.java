package io.pgrepl.cli;

import static io.pgrepl.cli.Cli.query;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.Waits;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code pgrepl stream --snapshot=incremental --snapshot-state FILE -f OUT} as a child process on
 * PostgreSQL 18, SIGKILLed mid-snapshot while another session inserts, updates, deletes and changes
 * keys; started again with the same state file and output file, it resumes from its last stored chunk
 * (the first keys are not read again, far fewer reads than the table holds) and the output file, applied
 * in order, rebuilds the table.
 */
class IncrementalKillTest {
    private static final int ROWS = 12_000;
    /** Keys below this are never changed: where each range starts, so reading them again means starting over. */
    private static final int STABLE = 200;
    private static PgServer server;

    @BeforeAll
    static void start() throws Exception {
        server = PgServer.builder().version(18).start();
        server.sql("postgres", "CREATE TABLE kill_t (id int PRIMARY KEY, v text, n int);"
                + " INSERT INTO kill_t SELECT g, 'row ' || g, g FROM generate_series(1, " + ROWS + ") g;"
                + " CREATE PUBLICATION kill_pub FOR TABLE kill_t");
        server.sql("postgres", "SELECT pg_create_logical_replication_slot('kill_slot', 'pgoutput')");
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
    }

    private static ProcessBuilder cli(String... args) {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), "io.pgrepl.cli.Main"));
        cmd.addAll(List.of(args));
        return new ProcessBuilder(cmd);
    }

    @Test
    void sigkillMidSnapshotResumesAtAChunk(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("out.jsonl");
        Path state = dir.resolve("snap.state");
        String[] args = {"stream", Cli.url(server), "-S", "kill_slot", "-P", "kill_pub", "--snapshot=incremental",
                "--chunk-size", "150", "--snapshot-workers", "2", "--snapshot-state", state.toString(),
                "-f", out.toString(), "-F", "1", "-s", "1"};
        int firstRunLines;
        AtomicBoolean mutate = new AtomicBoolean(true);
        AtomicInteger statements = new AtomicInteger();
        CompletableFuture<Void> mutator = CompletableFuture.runAsync(() -> mutate(mutate, statements));
        try {
            Process first = cli(args).redirectError(dir.resolve("err1.txt").toFile()).start();
            long deadline = System.nanoTime() + Waits.CEILING.toNanos();
            // Mid-snapshot: a third of the table printed, and a state stored (it follows the first fsync).
            while (reads(out) < ROWS / 3 || !Files.exists(state)) {
                assertTrue(first.isAlive(), () -> "ended early: " + read(dir.resolve("err1.txt")));
                assertTrue(System.nanoTime() < deadline, "no progress: " + read(dir.resolve("err1.txt")));
                Thread.sleep(20);
            }
            // The stored state trails the output by up to an fsync interval (-F 1) and the commit that confirms
            // it, which on a loaded machine is thousands of rows. A lock holds the chunk reads and the mutator
            // where they are; once the stored state has reached a quarter of the table and then stayed the same
            // for several fsync intervals, it is as current as it gets, so the bounds below measure resuming,
            // not the machine's load.
            try (PgConnection lock = PgConnection.connect(plain()).toCompletableFuture().get(60, TimeUnit.SECONDS)) {
                lock.simpleQuery("BEGIN; LOCK TABLE kill_t IN ACCESS EXCLUSIVE MODE").toCompletableFuture().get(60, TimeUnit.SECONDS);
                String stored = read(state);
                long since = System.nanoTime();
                while (storedKeys(stored) < ROWS / 4 || System.nanoTime() - since < TimeUnit.SECONDS.toNanos(3)) {
                    assertTrue(first.isAlive(), () -> "ended early: " + read(dir.resolve("err1.txt")));
                    assertTrue(System.nanoTime() < deadline, "the stored state never reached a quarter of the table: "
                            + stored + "\n" + read(dir.resolve("err1.txt")));
                    Thread.sleep(50);
                    String now = read(state);
                    if (!now.equals(stored)) {
                        stored = now;
                        since = System.nanoTime();
                    }
                }
                first.toHandle().destroyForcibly(); // SIGKILL: no shutdown hook, nothing flushed or confirmed
            }
            assertTrue(first.waitFor(30, TimeUnit.SECONDS));
            assertEquals(137, first.exitValue(), "killed by SIGKILL");
            String out1 = Files.readString(out, StandardCharsets.UTF_8);
            assertFalse(out1.contains("\"snapshot_end\""), "killed mid-snapshot");
            firstRunLines = (int) out1.chars().filter(c -> c == '\n').count();
            int before = statements.get();
            while (statements.get() < before + 20) Thread.sleep(10); // changes while nothing streams

            Process second = cli(args).redirectError(dir.resolve("err2.txt").toFile()).start();
            while (!Files.readString(out, StandardCharsets.UTF_8).contains("\"snapshot_end\"")) {
                assertTrue(second.isAlive(), () -> "ended early: " + read(dir.resolve("err2.txt")));
                assertTrue(System.nanoTime() < deadline, "no snapshot_end: " + read(dir.resolve("err2.txt")));
                Thread.sleep(50);
            }
            mutate.set(false);
            mutator.get(60, TimeUnit.SECONDS);
            // Everything committed so far is printed once the stream passed the current WAL position.
            String end = query(server, "SELECT pg_current_wal_lsn()");
            waitConfirmed(end);
            assertTrue(second.toHandle().destroy()); // SIGTERM: a clean stop
            assertTrue(second.waitFor(60, TimeUnit.SECONDS));
            assertEquals(0, second.exitValue(), read(dir.resolve("err2.txt")));
        } finally {
            mutate.set(false);
        }

        List<JsonNode> lines = Cli.parseLines(Files.readString(out, StandardCharsets.UTF_8)); // every line whole JSON
        Map<Integer, Integer> readsFirst = new HashMap<>();
        Map<Integer, Integer> readsSecond = new HashMap<>();
        Map<Integer, JsonNode> rebuilt = new TreeMap<>();
        for (int i = 0; i < lines.size(); i++) {
            JsonNode n = lines.get(i);
            switch (n.get("type").asText()) {
                case "read" -> {
                    int id = n.get("new").get("id").asInt();
                    (i < firstRunLines ? readsFirst : readsSecond).merge(id, 1, Integer::sum);
                    rebuilt.put(id, n.get("new"));
                }
                case "insert" -> rebuilt.put(n.get("new").get("id").asInt(), n.get("new"));
                case "update" -> {
                    if (n.has("key")) rebuilt.remove(n.get("key").get("id").asInt());
                    rebuilt.put(n.get("new").get("id").asInt(), n.get("new"));
                }
                case "delete" -> rebuilt.remove(n.get("key").get("id").asInt());
                default -> { }
            }
        }
        int n1 = readsFirst.values().stream().mapToInt(Integer::intValue).sum();
        int n2 = readsSecond.values().stream().mapToInt(Integer::intValue).sum();
        long again = readsSecond.keySet().stream().filter(readsFirst::containsKey).count();
        System.out.printf("IncrementalKillTest: first run %d reads, second %d, %d keys read by both%n", n1, n2, again);
        assertTrue(readsFirst.values().stream().allMatch(v -> v == 1) && readsSecond.values().stream().allMatch(v -> v == 1),
                "a run reads each key once");
        assertTrue(readsFirst.containsKey(1) && !readsSecond.containsKey(1), "the second run did not start over at the first key");
        Map<Integer, JsonNode> now = new TreeMap<>();
        for (JsonNode r : Cli.parse(query(server, "SELECT json_agg(t) FROM kill_t t"))) now.put(r.get("id").asInt(), r);
        // A run that started over would read about every row there is (concurrent inserts and key
        // changes add rows the second run reads too, so a bound from ROWS alone is not one).
        assertTrue(n2 < now.size() - ROWS / 6, "the second run resumed: " + n2 + " reads after " + n1 + ", " + now.size() + " rows");
        // Read again: what was printed after the last stored state. The lock let the state catch up with the
        // output, so at most the last chunk of each worker is left (its state goes with the next commit).
        assertTrue(again <= 2 * 150, "only the chunks after the last stored state are read again: " + again);
        assertEquals(now.keySet(), rebuilt.keySet(), "the output's rows are the server's");
        assertEquals(now, rebuilt, "row for row");
    }

    private static void waitConfirmed(String lsn) throws Exception {
        long deadline = System.nanoTime() + Waits.CEILING.toNanos();
        while (!"t".equals(query(server, "SELECT confirmed_flush_lsn >= '" + lsn + "' FROM pg_replication_slots WHERE slot_name = 'kill_slot'"))) {
            assertTrue(System.nanoTime() < deadline, "the stream never confirmed " + lsn);
            Thread.sleep(50);
        }
    }

    /**
     * Keys the stored state says are done, summed over its key ranges ({@code r AFTER UPTO LASTKEY DONE}
     * lines, keys as {@code k,TEXT}, {@code -} for none: the client's ProgressState): only an estimate, as keys are dense
     * but some were deleted or moved.
     */
    private static long storedKeys(String state) {
        long sum = 0;
        for (String line : state.split("\n")) {
            String[] f = line.split(" ");
            if (f.length != 5 || !f[0].equals("r")) continue;
            long after = f[1].equals("-") ? 0 : Long.parseLong(f[1].substring(2));
            String last = f[4].equals("1") ? f[2] : f[3];
            if (!last.equals("-")) sum += Math.min(Long.parseLong(last.substring(2)), ROWS) - after;
        }
        return sum;
    }

    private static ConnectionConfig plain() {
        return ConnectionConfig.parse(Cli.url(server)).toBuilder().replication(ReplicationMode.NONE).build();
    }

    private static int reads(Path out) throws Exception {
        if (!Files.exists(out)) return 0;
        return Files.readString(out, StandardCharsets.UTF_8).split("\"type\":\"read\"", -1).length - 1;
    }

    private static String read(Path p) {
        try {
            return Files.exists(p) ? Files.readString(p, StandardCharsets.UTF_8) : "";
        } catch (Exception e) {
            return e.toString();
        }
    }

    /** Inserts, updates, deletes and key changes of keys at or above {@link #STABLE}, one transaction at a time. */
    private static void mutate(AtomicBoolean go, AtomicInteger statements) {
        ConnectionConfig c = plain();
        java.util.Random r = new java.util.Random(18);
        try (PgConnection conn = PgConnection.connect(c).toCompletableFuture().get(60, TimeUnit.SECONDS)) {
            for (int k = 0; go.get(); k++) {
                int id = STABLE + r.nextInt(ROWS - STABLE);
                String sql = switch (k % 4) {
                    case 0 -> "INSERT INTO kill_t VALUES (" + (ROWS + 1 + k) + ", 'new " + k + "', " + k + ")";
                    case 1 -> "UPDATE kill_t SET v = 'upd " + k + "', n = n + 1 WHERE id = " + id;
                    case 2 -> "DELETE FROM kill_t WHERE id = " + id;
                    default -> "UPDATE kill_t SET id = id + 1000000 WHERE id = " + id;
                };
                conn.query(sql).toCompletableFuture().get(60, TimeUnit.SECONDS);
                statements.incrementAndGet();
                Thread.sleep(3);
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
