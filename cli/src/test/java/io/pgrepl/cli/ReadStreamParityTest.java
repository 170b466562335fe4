package io.pgrepl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.TypedTable;
import io.pgrepl.testkit.Waits;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The parity rule on the CLI's face ({@code pgrepl stream --format json}): a row read by
 * {@code --snapshot} (the exported snapshot's copy) and by {@code --snapshot=incremental} (a chunk)
 * is the same JSON as the same row streamed: the same typed values, column types and key columns.
 * {@link TypedTable}'s rows 1 to 3 are read; the same values are inserted again after the
 * snapshot and stream.
 */
class ReadStreamParityTest {
    private static final Map<Integer, PgServer> SERVERS = new HashMap<>();

    @AfterAll
    static void stop() {
        SERVERS.values().forEach(PgServer::close);
    }

    /** The CLI in-process on another thread; {@code after} runs once its output has a snapshot_end line. */
    private static List<JsonNode> run(PgServer s, String after, String... args) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        CompletableFuture<Integer> rc = CompletableFuture.supplyAsync(() -> Main.run(args,
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)));
        long deadline = System.nanoTime() + Waits.CEILING.toNanos();
        while (!out.toString(StandardCharsets.UTF_8).contains("{\"type\":\"snapshot_end\"")) {
            assertFalse(rc.isDone(), () -> "ended before its snapshot_end line: " + err.toString(StandardCharsets.UTF_8));
            assertTrue(System.nanoTime() < deadline, "no snapshot_end line");
            Thread.sleep(20);
        }
        s.sql("postgres", after);
        assertEquals(0, rc.get(90, TimeUnit.SECONDS), err.toString(StandardCharsets.UTF_8));
        return Cli.parseLines(out.toString(StandardCharsets.UTF_8));
    }

    /** The lines of {@code type} by the row's id: what a row is (table, types, key, values), without where it came from. */
    private static Map<Integer, JsonNode> rows(List<JsonNode> lines, String type) {
        Map<Integer, JsonNode> out = new HashMap<>();
        for (JsonNode n : lines) {
            if (!n.get("type").asText().equals(type)) continue;
            ObjectNode row = Cli.JSON.createObjectNode();
            for (String f : List.of("schema", "table", "column_types", "key_columns", "new")) row.set(f, n.get(f));
            int id = n.get("new").get("Id").asInt();
            ((ObjectNode) row.get("new")).remove("Id");
            out.put(id, row);
        }
        return out;
    }

    @ParameterizedTest(name = "PG {0}")
    @ValueSource(ints = {18, 10})
    void readsAreStreamedLines(int major) throws Exception {
        PgServer s = SERVERS.computeIfAbsent(major, m -> PgServer.builder().version(m).start());
        s.sql("postgres", TypedTable.setup(major) + " DROP PUBLICATION IF EXISTS par_pub; CREATE PUBLICATION par_pub FOR TABLE "
                + TypedTable.QUALIFIED);
        List<JsonNode> copy = run(s, TypedTable.copy(major, 100), "stream", Cli.url(s), "-S", "par_copy", "-P", "par_pub",
                "--create-slot", "--temporary", "--snapshot", "--column-types", "change", "--idle-exit", "2");
        // Rows 1 to 3 and 101 to 103 exist now: the incremental snapshot reads all six, then 201 to 203 stream.
        List<JsonNode> chunks = run(s, TypedTable.copy(major, 200), "stream", Cli.url(s), "-S", "par_inc", "-P", "par_pub",
                "--create-slot", "--temporary", "--snapshot=incremental", "--snapshot-tables", TypedTable.QUALIFIED,
                "--column-types", "change", "--idle-exit", "2");
        Map<Integer, JsonNode> copied = rows(copy, "read");
        Map<Integer, JsonNode> streamed = rows(copy, "insert");
        Map<Integer, JsonNode> chunked = rows(chunks, "read");
        Map<Integer, JsonNode> streamedLater = rows(chunks, "insert");
        assertEquals(3, copied.size(), "the copy's reads");
        assertEquals(6, chunked.size(), () -> "the chunks' reads: " + chunks.stream().filter(n -> !n.get("type").asText().equals("insert")).toList());
        for (int id = 1; id <= 3; id++) {
            JsonNode twin = streamed.get(id + 100);
            assertNotNull(twin, "row " + (id + 100) + " streamed");
            assertEquals(twin, streamedLater.get(id + 200), "rows " + (id + 100) + " and " + (id + 200) + " streamed alike");
            for (Map.Entry<String, JsonNode> read : Map.of("copy", copied.get(id), "chunk", chunked.get(id),
                    "chunk of a streamed row", chunked.get(id + 100)).entrySet()) {
                JsonNode r = read.getValue();
                assertNotNull(r, "the " + read.getKey() + " read of row " + id);
                for (String f : List.of("schema", "table", "column_types", "key_columns")) {
                    assertEquals(twin.get(f), r.get(f), read.getKey() + " read of row " + id + ": " + f);
                }
                String what = "the " + read.getKey() + " read of row " + id;
                twin.get("new").fieldNames().forEachRemaining(c -> assertEquals(twin.get("new").get(c), r.get("new").get(c),
                        what + ": column " + c));
                assertEquals(twin, r, what);
            }
        }
    }
}
