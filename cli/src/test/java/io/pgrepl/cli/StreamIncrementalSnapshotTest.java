package io.pgrepl.cli;

import static io.pgrepl.cli.Cli.query;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.codec.Lsn;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.Waits;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code pgrepl stream --snapshot=incremental} on a real PostgreSQL 18, on an existing slot, while
 * another session inserts, updates, deletes and changes keys: the table rebuilt from the read lines
 * and the change lines, in output order, is the table the server has at the end.
 */
class StreamIncrementalSnapshotTest {
    private static final int ROWS = 4000;
    private static PgServer server;

    @BeforeAll
    static void start() throws Exception {
        server = PgServer.builder().version(18).start();
        server.sql("postgres", "CREATE TABLE inc_t (id int PRIMARY KEY, v text, n int);"
                + " INSERT INTO inc_t SELECT g, 'row ' || g, g FROM generate_series(1, " + ROWS + ") g;"
                + " CREATE PUBLICATION inc_pub FOR TABLE inc_t");
        server.sql("postgres", "SELECT pg_create_logical_replication_slot('inc_slot', 'pgoutput')"); // an existing slot
        server.sql("postgres", "CREATE TABLE inc_r (id int PRIMARY KEY, v text);"
                + " INSERT INTO inc_r SELECT g, 'row ' || g FROM generate_series(1, 3000) g;"
                + " CREATE PUBLICATION inc_rpub FOR TABLE inc_r");
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
    }

    @Test
    void snapshotOptionsParse() throws Exception {
        String[] base = {"u", "-S", "s", "-P", "p"};
        StreamOptions plain = StreamOptions.parse(concat(base, "--snapshot"));
        assertTrue(plain.snapshot && !plain.incremental, "bare --snapshot is the exported copy");
        StreamOptions export = StreamOptions.parse(concat(base, "--snapshot=export"));
        assertTrue(export.snapshot && !export.incremental);
        StreamOptions inc = StreamOptions.parse(concat(base, "--snapshot=incremental", "--snapshot-tables", "a, s.b", "--chunk-size", "7",
                "--snapshot-workers", "3", "--snapshot-state", "x.state"));
        assertTrue(inc.incremental && !inc.snapshot);
        assertEquals(List.of("a", "s.b"), inc.snapshotTables);
        assertEquals(7, inc.chunkSize);
        assertEquals(3, inc.snapshotWorkers);
        assertEquals(java.nio.file.Path.of("x.state"), inc.snapshotState);
        assertEquals(1024, StreamOptions.parse(concat(base, "--snapshot=incremental")).chunkSize);
        for (String[] bad : List.of(concat(base, "--snapshot=full"), concat(base, "--chunk-size", "5"),
                concat(base, "--snapshot", "--snapshot-state", "f"), concat(base, "--snapshot=incremental", "--format", "protocol"),
                concat(base, "--snapshot=incremental", "--binary"), concat(base, "--snapshot=incremental", "--chunk-size", "0"),
                concat(base, "--snapshot=incremental", "--snapshot-tables", "a,,b"))) {
            org.junit.jupiter.api.Assertions.assertThrows(UsageException.class, () -> StreamOptions.parse(bad), String.join(" ", bad));
        }
    }

    private static String[] concat(String[] a, String... b) {
        return java.util.stream.Stream.concat(java.util.Arrays.stream(a), java.util.Arrays.stream(b)).toArray(String[]::new);
    }

    @Test
    void readsAndConcurrentChangesRebuildTheTable() throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CompletableFuture<Integer> rc = CompletableFuture.supplyAsync(() -> Main.run(new String[] {"stream", Cli.url(server),
                "-S", "inc_slot", "-P", "inc_pub", "--snapshot=incremental", "--chunk-size", "100", "--snapshot-workers", "2",
                "--idle-exit", "4", "-s", "1"}, new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)));

        int ops = mutateUntilSnapshotEnd(out, rc, err);
        int code = rc.get(120, TimeUnit.SECONDS);
        assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
        List<JsonNode> lines = Cli.parseLines(out.toString(StandardCharsets.UTF_8));

        // Rebuild in output order: a read or an insert puts the row, an update replaces it (under its old key, if
        // it changed), a delete removes it.
        Map<Integer, JsonNode> rebuilt = new TreeMap<>();
        int reads = 0;
        int firstRead = -1;
        int lastRead = -1;
        int changesBetween = 0;
        List<String> markers = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            JsonNode n = lines.get(i);
            String type = n.get("type").asText();
            switch (type) {
                case "read" -> {
                    assertEquals("incremental", n.path("snapshot").asText(), n.toString());
                    assertEquals("inc_t", n.get("table").asText());
                    Lsn.parse(n.get("lsn").asText()); // the chunk's position, an LSN
                    rebuilt.put(n.get("new").get("id").asInt(), n.get("new"));
                    reads++;
                    if (firstRead < 0) firstRead = i;
                    lastRead = i;
                }
                case "insert" -> rebuilt.put(n.get("new").get("id").asInt(), n.get("new"));
                case "update" -> {
                    if (n.has("key")) rebuilt.remove(n.get("key").get("id").asInt());
                    rebuilt.put(n.get("new").get("id").asInt(), n.get("new"));
                }
                case "delete" -> rebuilt.remove(n.get("key").get("id").asInt());
                case "snapshot_start", "snapshot_end" -> {
                    assertEquals("incremental", n.get("snapshot").asText(), n.toString());
                    assertEquals("public.inc_t", n.get("table").asText());
                    markers.add(type);
                    if (type.equals("snapshot_end")) {
                        assertEquals("completed", n.get("status").asText(), n.toString());
                        assertEquals(reads, n.get("rows").asInt(), "snapshot_end counts the read lines");
                    }
                }
                default -> { }
            }
        }
        for (int i = firstRead; i >= 0 && i < lastRead; i++) {
            if (lines.get(i).get("type").asText().equals("commit")) changesBetween++;
        }
        assertEquals(List.of("snapshot_start", "snapshot_end"), markers);
        assertTrue(reads > 0, "no read lines");

        Map<Integer, JsonNode> now = new TreeMap<>();
        for (JsonNode r : Cli.parse(query(server, "SELECT json_agg(t) FROM inc_t t"))) now.put(r.get("id").asInt(), r);
        assertEquals(now.keySet(), rebuilt.keySet(), "the rows the output leaves are the server's rows");
        assertEquals(now, rebuilt, "row for row, the output's values are the server's");
        assertTrue(changesBetween > 0, "no transaction between the first and the last read: the changes did not overlap the snapshot"
                + " (" + ops + " statements ran)");

        // The stream was acknowledged as usual: the slot stands at or past the last commit printed.
        String lastEnd = null;
        for (JsonNode n : lines) if (n.has("end_lsn")) lastEnd = n.get("end_lsn").asText();
        String confirmed = query(server, "SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = 'inc_slot'");
        assertTrue(lastEnd != null && Long.compareUnsigned(Lsn.parse(confirmed), Lsn.parse(lastEnd)) >= 0, confirmed + " vs " + lastEnd);
    }

    /**
     * Stopped mid-snapshot (--end-lsn), then started again with the same --snapshot-state: the second
     * run goes on from the stored chunk instead of reading the table again, and both outputs applied
     * in order rebuild the table.
     */
    @Test
    void resumesFromTheStateFile(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path state = dir.resolve("inc.state");
        String[] common = {"stream", Cli.url(server), "-S", "inc_rslot", "-P", "inc_rpub", "--create-slot", "--if-not-exists",
                "--snapshot=incremental", "--chunk-size", "20", "--snapshot-workers", "1", "--snapshot-state", state.toString()};
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        List<String> first = new ArrayList<>(List.of(common));
        CompletableFuture<Integer> rc;
        // The stop position is known only once reads came: the run stops at the first commit past it.
        String[] holder = new String[1];
        ConnectionConfig c = ConnectionConfig.parse(Cli.url(server)).toBuilder().replication(ReplicationMode.NONE).build();
        try (PgConnection conn = PgConnection.connect(c).toCompletableFuture().get(60, TimeUnit.SECONDS)) {
            String end = conn.query("SELECT pg_current_wal_lsn() + 1").toCompletableFuture().get(60, TimeUnit.SECONDS).rows().get(0).get(0);
            first.addAll(List.of("--end-lsn", end));
            rc = CompletableFuture.supplyAsync(() -> Main.run(first.toArray(String[]::new), new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8)));
            long deadline = System.nanoTime() + Waits.CEILING.toNanos();
            while (out.toString(StandardCharsets.UTF_8).split("\"type\":\"read\"", -1).length < 300) {
                assertFalse(rc.isDone(), () -> "ended early: " + err.toString(StandardCharsets.UTF_8));
                assertTrue(System.nanoTime() < deadline, "no reads");
                Thread.sleep(5);
            }
            conn.query("UPDATE inc_r SET v = 'changed' WHERE id IN (1, 2999); DELETE FROM inc_r WHERE id = 2")
                    .toCompletableFuture().get(60, TimeUnit.SECONDS);
            holder[0] = end;
        }
        assertEquals(0, rc.get(60, TimeUnit.SECONDS), err.toString(StandardCharsets.UTF_8));
        String out1 = out.toString(StandardCharsets.UTF_8);
        assertFalse(out1.contains("snapshot_end"), "the first run was to stop mid-snapshot: " + holder[0]);
        assertTrue(java.nio.file.Files.readString(state).contains("inc_r"), "the state file names the table");

        String[] second = java.util.stream.Stream.concat(java.util.Arrays.stream(common), java.util.stream.Stream.of("--idle-exit", "3", "-v"))
                .toArray(String[]::new);
        Cli.Result r2 = Cli.run(second);
        assertEquals(0, r2.rc(), r2.err());
        long reads2 = r2.lines().stream().filter(n -> n.get("type").asText().equals("read")).count();
        assertTrue(reads2 > 0 && reads2 < 3000 - 200, "the second run resumed rather than read everything again: " + reads2);
        assertTrue(r2.err().contains("resuming the incremental snapshot"), r2.err());
        assertTrue(r2.out().contains("\"type\":\"snapshot_end\""), r2.out());

        Map<Integer, JsonNode> rebuilt = new TreeMap<>();
        for (JsonNode n : Cli.parseLines(out1 + r2.out())) {
            switch (n.get("type").asText()) {
                case "read", "insert" -> rebuilt.put(n.get("new").get("id").asInt(), n.get("new"));
                case "update" -> {
                    if (n.has("key")) rebuilt.remove(n.get("key").get("id").asInt());
                    rebuilt.put(n.get("new").get("id").asInt(), n.get("new"));
                }
                case "delete" -> rebuilt.remove(n.get("key").get("id").asInt());
                default -> { }
            }
        }
        Map<Integer, JsonNode> now = new TreeMap<>();
        for (JsonNode r : Cli.parse(query(server, "SELECT json_agg(t) FROM inc_r t"))) now.put(r.get("id").asInt(), r);
        assertEquals(now, rebuilt, "both runs' lines rebuild the table");
    }

    /**
     * Inserts, updates, deletes and key changes of random rows, one statement (or a pair in one
     * transaction) at a time, until the CLI printed snapshot_end; returns how many ran.
     */
    private static int mutateUntilSnapshotEnd(ByteArrayOutputStream out, CompletableFuture<Integer> rc, ByteArrayOutputStream err)
            throws Exception {
        List<Integer> ids = new ArrayList<>();
        for (int i = 1; i <= ROWS; i++) ids.add(i);
        Collections.shuffle(ids, new Random(18));
        ConnectionConfig c = ConnectionConfig.parse(Cli.url(server)).toBuilder().replication(ReplicationMode.NONE).build();
        long deadline = System.nanoTime() + Waits.CEILING.toNanos();
        int i = 0; // the next row of ids to change
        int k = 0; // statements run
        try (PgConnection conn = PgConnection.connect(c).toCompletableFuture().get(60, TimeUnit.SECONDS)) {
            while (!out.toString(StandardCharsets.UTF_8).contains("\"type\":\"snapshot_end\"")) {
                assertFalse(rc.isDone(), () -> "the CLI ended before snapshot_end: " + err.toString(StandardCharsets.UTF_8));
                assertTrue(System.nanoTime() < deadline, "no snapshot_end line");
                if (i >= ids.size() - 2) {
                    // Every row was changed once (a slow, loaded machine): the rest of the snapshot runs on a still table.
                    Thread.sleep(20);
                    continue;
                }
                int id = ids.get(i);
                String sql = switch (k % 5) {
                    case 0 -> "INSERT INTO inc_t VALUES (" + (100_000 + i) + ", 'new " + i + "', " + i + ")";
                    case 1 -> "UPDATE inc_t SET v = 'upd " + i + "', n = n + 1 WHERE id = " + id;
                    case 2 -> "DELETE FROM inc_t WHERE id = " + id;
                    case 3 -> "UPDATE inc_t SET id = id + 200000 WHERE id = " + id;
                    default -> "UPDATE inc_t SET n = -n WHERE id = " + id + "; DELETE FROM inc_t WHERE id = " + ids.get(i + 1);
                };
                conn.query(sql).toCompletableFuture().get(60, TimeUnit.SECONDS);
                i += k % 5 == 4 ? 2 : 1;
                k++;
                Thread.sleep(2); // a steady trickle, not a burst before the first chunk
            }
            // A few more after the snapshot: plain streaming goes on.
            conn.query("UPDATE inc_t SET v = 'after' WHERE id = " + ids.get(Math.min(i, ids.size() - 1))).toCompletableFuture().get(60, TimeUnit.SECONDS);
            conn.query("INSERT INTO inc_t VALUES (999999, 'last', 0)").toCompletableFuture().get(60, TimeUnit.SECONDS);
        }
        return k;
    }
}
