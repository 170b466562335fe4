package io.pgrepl.cli;

import static io.pgrepl.cli.Cli.query;
import static io.pgrepl.cli.Cli.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.pgrepl.codec.Lsn;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.Waits;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code pgrepl stream --create-slot --snapshot} on real PostgreSQL 18 and 10: the snapshot's lines
 * (values compared with the server's own JSON of its rows), then the changes made after it; the
 * refusals; a failing snapshot leaves no slot (or keeps it when asked) and a re-run works.
 */
class StreamSnapshotTest {
    private static final Map<Integer, PgServer> SERVERS = new HashMap<>();

    private static final String SETUP = "CREATE TABLE snap_a (id int PRIMARY KEY, n numeric, t text, b bool, j jsonb, ai int[],"
            + " big bigint);"
            + " INSERT INTO snap_a SELECT g, g * 1.25, 'row ' || g || E' \"q\" \\u00e9\\n', g % 2 = 0, jsonb_build_object('g', g,"
            + " 'x', ARRAY[g]), ARRAY[g, NULL], g * 10000000000 FROM generate_series(1, 300) g;"
            + " INSERT INTO snap_a VALUES (1000, NULL, NULL, NULL, NULL, NULL, NULL);"
            + " CREATE TABLE snap_b (k text PRIMARY KEY, v int);"
            + " INSERT INTO snap_b SELECT 'k' || g, g FROM generate_series(1, 20) g;"
            + " CREATE PUBLICATION snap_pub FOR TABLE snap_a, snap_b";

    private static synchronized PgServer server(int version) throws Exception {
        PgServer s = SERVERS.get(version);
        if (s == null) {
            s = PgServer.builder().version(version).start();
            s.sql("postgres", SETUP);
            SERVERS.put(version, s);
        }
        return s;
    }

    @AfterAll
    static void stop() {
        SERVERS.values().forEach(PgServer::close);
    }

    /** The server's own JSON of {@code select} (a query of one row per table row), by {@code key}. */
    private static Map<String, JsonNode> serverRows(PgServer s, String select, String key) throws Exception {
        JsonNode all = Cli.parse(query(s, "SELECT coalesce(json_agg(r), '[]') FROM (" + select + ") r"));
        Map<String, JsonNode> byKey = new HashMap<>();
        for (JsonNode n : all) byKey.put(n.get(key).asText(), n);
        return byKey;
    }

    /** Row for row, value for value (one row per message when they differ). */
    private static void assertSameRows(Map<String, JsonNode> server, Map<String, JsonNode> read) {
        assertEquals(server.keySet(), read.keySet(), "the rows read are the server's rows");
        for (String key : server.keySet()) assertEquals(server.get(key), read.get(key), "row " + key + " as the server renders it");
    }

    private static boolean slotExists(PgServer s, String slot) throws Exception {
        return "1".equals(query(s, "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + slot + "'"));
    }

    private static int lsnCompare(String a, String b) {
        return Long.compareUnsigned(Lsn.parse(a), Lsn.parse(b));
    }

    /** The CLI in-process on another thread, its stdout readable while it runs. */
    private static final class Running {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final CompletableFuture<Integer> rc;

        Running(String... args) {
            rc = CompletableFuture.supplyAsync(() -> Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8)));
        }

        void awaitLine(String type) throws Exception {
            long deadline = System.nanoTime() + Waits.CEILING.toNanos();
            while (!out.toString(StandardCharsets.UTF_8).contains("{\"type\":\"" + type + "\"")) {
                assertFalse(rc.isDone(), () -> "ended before a " + type + " line: " + err.toString(StandardCharsets.UTF_8));
                assertTrue(System.nanoTime() < deadline, "no " + type + " line");
                Thread.sleep(10);
            }
        }

        Cli.Result result() throws Exception {
            int code = rc.get(90, TimeUnit.SECONDS);
            return new Cli.Result(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        }
    }

    @ParameterizedTest(name = "PG {0}")
    @ValueSource(ints = {18, 10})
    void readsEveryRowThenStreamsTheLaterChanges(int version) throws Exception {
        PgServer s = server(version);
        String slot = "snap_json";
        Map<String, JsonNode> a = serverRows(s, "SELECT * FROM snap_a", "id");
        Map<String, JsonNode> b = serverRows(s, "SELECT * FROM snap_b", "k");
        assertEquals(301, a.size());
        Running cli = new Running("stream", Cli.url(s), "-S", slot, "-P", "snap_pub", "--create-slot", "--snapshot",
                "--snapshot-workers", "2", "--idle-exit", "3", "-v");
        cli.awaitLine("snapshot_end");
        // Changes made after the snapshot (and after the slot): they must stream, after every read.
        s.sql("postgres", "INSERT INTO snap_a VALUES (2000, 0.5, 'late', true, '[1, {\"z\": null}]', '{}', -1)");
        s.sql("postgres", "UPDATE snap_a SET t = 'changed' WHERE id = 1");
        s.sql("postgres", "DELETE FROM snap_a WHERE id = 2");
        s.sql("postgres", "INSERT INTO snap_b VALUES ('late', 99)");
        Cli.Result r = cli.result();
        assertEquals(0, r.rc(), r.err());
        List<JsonNode> lines = r.lines();
        int rows = a.size() + b.size();
        List<String> expected = new ArrayList<>();
        expected.add("snapshot_start");
        for (int i = 0; i < rows; i++) expected.add("read");
        expected.add("snapshot_end");
        for (String change : List.of("insert", "update", "delete", "insert")) expected.addAll(List.of("begin", change, "commit"));
        assertEquals(expected, r.types(), r.out());

        JsonNode start = lines.get(0);
        String at = start.get("lsn").asText();
        assertEquals(Set.of("public.snap_a", "public.snap_b"), Set.of(start.get("tables").get(0).asText(),
                start.get("tables").get(1).asText()));
        assertEquals(2, start.get("tables").size());
        Map<String, JsonNode> readA = new HashMap<>();
        Map<String, JsonNode> readB = new HashMap<>();
        for (JsonNode read : lines.subList(1, rows + 1)) {
            assertEquals(at, read.get("lsn").asText(), "every read carries the consistent point");
            assertEquals("public", read.get("schema").asText());
            boolean isA = read.get("table").asText().equals("snap_a");
            assertTrue(isA || read.get("table").asText().equals("snap_b"), read.toString());
            JsonNode row = read.get("new");
            assertNull((isA ? readA : readB).put(row.get(isA ? "id" : "k").asText(), row), "read twice: " + row);
            if (isA) {
                assertEquals("int4", read.get("column_types").get("id").asText());
                assertEquals("numeric", read.get("column_types").get("n").asText());
                assertEquals("id", read.get("key_columns").get(0).asText());
            }
        }
        assertSameRows(a, readA);
        assertSameRows(b, readB);
        JsonNode end = lines.get(rows + 1);
        assertEquals(at, end.get("lsn").asText());
        assertEquals(rows, end.get("rows").asLong());

        // The later changes, after the snapshot's position, values as the server has them now.
        List<JsonNode> stream = lines.subList(rows + 2, lines.size());
        for (JsonNode n : stream) {
            if (n.has("end_lsn")) assertTrue(lsnCompare(n.get("end_lsn").asText(), at) > 0, n + " after " + at);
        }
        Map<String, JsonNode> now = serverRows(s, "SELECT * FROM snap_a WHERE id IN (1, 2000)", "id");
        assertEquals(now.get("2000"), stream.get(1).get("new"));
        assertEquals(now.get("1"), stream.get(4).get("new"));
        assertEquals(2, stream.get(7).get("key").get("id").intValue());
        assertEquals("late", stream.get(10).get("new").get("k").asText());

        // Acknowledged up to the last commit, which was flushed first; -v showed the snapshot's progress.
        String confirmed = query(s, "SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '" + slot + "'");
        assertTrue(lsnCompare(confirmed, stream.get(stream.size() - 1).get("end_lsn").asText()) >= 0, confirmed);
        assertTrue(r.err().lines().anyMatch(l -> l.startsWith("pgrepl: snapshot done: 2/2 tables, " + rows + " rows")), r.err());
        s.dropReplicationSlot(slot);
    }

    @Test
    void protocolFormatReadsCarryTheServersTextAndBinaryTheSameJson() throws Exception {
        PgServer s = server(18);
        // The server's output functions, as pgoutput's text values and COPY's text format use them.
        Map<String, JsonNode> a = serverRows(s, "SELECT id::text AS id, n::text AS n, t, j::text AS j, ai::text AS ai,"
                + " big::text AS big, (CASE WHEN b THEN 't' WHEN NOT b THEN 'f' END) AS b FROM snap_a", "id");
        String relationId = query(s, "SELECT 'snap_a'::regclass::oid");
        Cli.Result r = run("stream", Cli.url(s), "-S", "snap_proto", "-P", "snap_pub", "--create-slot", "--temporary",
                "--snapshot", "--format", "protocol", "--idle-exit", "1");
        assertEquals(0, r.rc(), r.err());
        List<JsonNode> lines = r.lines();
        assertEquals("snapshot_start", lines.get(0).get("type").asText());
        Map<String, JsonNode> readA = new HashMap<>();
        int reads = 0;
        for (JsonNode n : lines) {
            if (!n.get("type").asText().equals("read")) continue;
            reads++;
            assertFalse(n.has("xid"), n.toString());
            if (!n.get("table").asText().equals("snap_a")) continue;
            assertEquals(relationId, n.get("relation_id").asText());
            readA.put(n.get("new").get("id").asText(), n.get("new"));
        }
        assertSameRows(a, readA);
        JsonNode end = lines.get(lines.size() - 1);
        assertEquals("snapshot_end", end.get("type").asText(), "nothing changed afterwards");
        assertEquals(reads, end.get("rows").asInt());
        assertEquals(lines.get(0).get("lsn"), end.get("lsn"));
        assertFalse(slotExists(s, "snap_proto"), "temporary");

        // --binary: the copy runs in binary and decodes to the same typed JSON as the server's own.
        Map<String, JsonNode> typed = serverRows(s, "SELECT * FROM snap_a", "id");
        Cli.Result bin = run("stream", Cli.url(s), "-S", "snap_bin", "-P", "snap_pub", "--create-slot", "--temporary",
                "--snapshot", "--binary", "--idle-exit", "1");
        assertEquals(0, bin.rc(), bin.err());
        Map<String, JsonNode> readBin = new HashMap<>();
        for (JsonNode n : bin.lines()) {
            if (n.get("type").asText().equals("read") && n.get("table").asText().equals("snap_a")) {
                readBin.put(n.get("new").get("id").asText(), n.get("new"));
            }
        }
        assertSameRows(typed, readBin);
    }

    @Test
    void refusedBeforeAnythingRuns() throws Exception {
        PgServer s = server(18);
        String slots = query(s, "SELECT count(*) FROM pg_replication_slots");
        // Without --create-slot: refused before connecting (this URL has nothing listening).
        Cli.Result noCreate = run("stream", "postgresql://127.0.0.1:1/x", "-S", "snap_nc", "-P", "snap_pub", "--snapshot");
        assertEquals(1, noCreate.rc(), noCreate.err());
        assertTrue(noCreate.err().contains("--snapshot needs --create-slot"), noCreate.err());
        assertTrue(noCreate.err().contains("only at slot creation"), noCreate.err());
        Cli.Result noCreateHere = run("stream", Cli.url(s), "-S", "snap_nc", "-P", "snap_pub", "--snapshot");
        assertEquals(1, noCreateHere.rc(), noCreateHere.err());
        assertEquals("", noCreateHere.out());
        assertFalse(slotExists(s, "snap_nc"));

        // An existing slot: refused with --create-slot, and with --if-not-exists too; the slot is untouched.
        s.sql("postgres", "SELECT pg_create_logical_replication_slot('snap_old', 'pgoutput')");
        String before = query(s, "SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = 'snap_old'");
        for (List<String> extra : List.of(List.<String>of(), List.of("--if-not-exists"))) {
            List<String> args = new ArrayList<>(List.of("stream", Cli.url(s), "-S", "snap_old", "-P", "snap_pub", "--create-slot",
                    "--snapshot", "--idle-exit", "1"));
            args.addAll(extra);
            Cli.Result r = run(args.toArray(String[]::new));
            assertEquals(1, r.rc(), extra + ": " + r.err());
            assertTrue(r.err().contains("\"snap_old\" already exists: --snapshot needs a new slot"), r.err());
            assertEquals("", r.out(), "nothing printed");
        }
        assertEquals(before, query(s, "SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = 'snap_old'"));
        s.dropReplicationSlot("snap_old");
        assertEquals(slots, query(s, "SELECT count(*) FROM pg_replication_slots"), "no slot created by any of them");

        // Option mistakes are usage errors.
        for (String[] bad : List.of(new String[] {"--snapshot-workers", "2"}, new String[] {"--snapshot", "--snapshot-workers", "0"},
                new String[] {"--snapshot", "--start-lsn", "0/1"}, new String[] {"--keep-slot-on-failure"},
                new String[] {"--snapshot", "--temporary", "--keep-slot-on-failure"})) {
            List<String> args = new ArrayList<>(List.of("stream", Cli.url(s), "-S", "snap_u", "-P", "snap_pub", "--create-slot"));
            args.addAll(List.of(bad));
            assertEquals(2, run(args.toArray(String[]::new)).rc(), String.join(" ", bad));
        }
    }

    @Test
    void theRowEstimateCoversAFreshTableAndSaysItIgnoresRowFilters() throws Exception {
        PgServer s = server(18);
        // Loaded and never analyzed: reltuples is unknown, the pages are not
        s.sql("postgres", "CREATE TABLE snap_fresh (id int PRIMARY KEY, v text);"
                + " INSERT INTO snap_fresh SELECT g, 'value ' || g FROM generate_series(1, 20000) g;"
                + " CREATE PUBLICATION snap_fresh_pub FOR TABLE snap_fresh;"
                + " CREATE PUBLICATION snap_filtered_pub FOR TABLE snap_fresh WHERE (id <= 1000)");
        Cli.Result all = run("stream", Cli.url(s), "-S", "snap_est", "-P", "snap_fresh_pub", "--create-slot", "--temporary",
                "--snapshot", "--idle-exit", "1", "-v");
        assertEquals(0, all.rc(), all.err());
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("pgrepl: snapshot done: 1/1 tables, 20000 rows \\(about (\\d+) expected\\)")
                .matcher(all.err());
        assertTrue(m.find(), all.err());
        long estimate = Long.parseLong(m.group(1));
        assertTrue(estimate >= 10_000 && estimate <= 40_000, "within 2x of 20000: " + estimate);

        Cli.Result filtered = run("stream", Cli.url(s), "-S", "snap_est_f", "-P", "snap_filtered_pub", "--create-slot", "--temporary",
                "--snapshot", "--idle-exit", "1", "-v");
        assertEquals(0, filtered.rc(), filtered.err());
        m = java.util.regex.Pattern.compile("pgrepl: snapshot done: 1/1 tables, 1000 rows \\(about (\\d+) before row filters\\)")
                .matcher(filtered.err());
        assertTrue(m.find(), "the estimate says it counts the rows the filter leaves out: " + filtered.err());
    }

    @Test
    void aFailedSnapshotLeavesNoSlotAndARerunWorks() throws Exception {
        PgServer s = server(18);
        s.sql("postgres", "CREATE TABLE snap_secret (id int PRIMARY KEY); INSERT INTO snap_secret VALUES (1), (2);"
                + " CREATE PUBLICATION snap_secret_pub FOR TABLE snap_secret");
        // The replication role may create the slot and stream, but not read the table: the COPY fails.
        String url = s.url(s.replicationUser(), "postgres");
        String[] args = {"stream", url, "-S", "snap_fail", "-P", "snap_secret_pub", "--create-slot", "--snapshot", "--idle-exit", "1"};
        Cli.Result r = run(args);
        assertEquals(1, r.rc(), r.err());
        assertTrue(r.err().contains("initial snapshot failed"), r.err());
        assertTrue(r.err().contains("permission denied"), r.err());
        assertTrue(r.err().contains("public.snap_secret"), r.err());
        assertTrue(r.err().contains("slot \"snap_fail\" was dropped"), r.err());
        assertFalse(r.types().contains("snapshot_end"), r.out());
        assertFalse(slotExists(s, "snap_fail"));

        List<String> keep = new ArrayList<>(List.of(args));
        keep.add("--keep-slot-on-failure");
        Cli.Result kept = run(keep.toArray(String[]::new));
        assertEquals(1, kept.rc(), kept.err());
        assertTrue(kept.err().contains("slot \"snap_fail\" was kept"), kept.err());
        assertTrue(slotExists(s, "snap_fail"), "kept as asked");
        s.dropReplicationSlot("snap_fail");

        s.sql("postgres", "GRANT SELECT ON snap_secret TO " + s.replicationUser().name());
        // Re-run, with --reconnect: the copy on the first connection, then the reconnecting stream from its position.
        List<String> rerun = new ArrayList<>(List.of(args));
        rerun.add("--reconnect");
        Cli.Result again = run(rerun.toArray(String[]::new));
        assertEquals(0, again.rc(), again.err());
        assertEquals(List.of("snapshot_start", "read", "read", "snapshot_end"), again.types());
        assertEquals(2, again.lines().get(3).get("rows").intValue());
        assertTrue(slotExists(s, "snap_fail"));
        s.dropReplicationSlot("snap_fail");
    }
}
