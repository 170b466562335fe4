package io.pgrepl.cli;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Runs {@code pgrepl demo} in-process against a real embedded PostgreSQL 18 and checks its JSON lines. */
class DemoCommandTest {

    @Test
    void demoStreamsTheWholeWorkloadAsJsonLinesAndCleansUp() {
        ByteArrayOutputStream outBytes = new ByteArrayOutputStream();
        ByteArrayOutputStream errBytes = new ByteArrayOutputStream();
        int rc = Main.run(new String[] {"demo"}, new PrintStream(outBytes, true, StandardCharsets.UTF_8),
                new PrintStream(errBytes, true, StandardCharsets.UTF_8));
        String out = outBytes.toString(StandardCharsets.UTF_8);
        String err = errBytes.toString(StandardCharsets.UTF_8);
        assertEquals(0, rc, err);
        List<String> lines = out.lines().toList();
        Map<String, Integer> counts = new TreeMap<>();
        List<com.fasterxml.jackson.databind.JsonNode> parsed = Cli.parseLines(out);
        assertEquals(lines.size(), parsed.size());
        for (com.fasterxml.jackson.databind.JsonNode n : parsed) counts.merge(n.get("type").asText(), 1, Integer::sum);
        // 3 + 2000 + 1 marker inserts; update of id 1 and of id 3; delete of id 2
        assertEquals(DemoCommand.BIG_ROWS + 4, counts.get("insert"), counts.toString());
        assertEquals(2, counts.get("update"), counts.toString());
        assertEquals(1, counts.get("delete"), counts.toString());
        assertEquals(2, counts.get("message"), counts.toString());
        // the big transaction is streamed in several blocks and ends with a stream commit
        assertEquals(1, counts.get("stream_commit"), counts.toString());
        assertTrue(counts.get("stream_start") >= 2, counts.toString());
        assertEquals(counts.get("stream_start"), counts.get("stream_stop"));
        // insert, update, delete, (message + update), marker: five plain transactions
        assertEquals(counts.get("begin"), counts.get("commit"));
        assertEquals(5, counts.get("commit"), counts.toString());
        assertTrue(counts.get("relation") >= 2, "relation re-sent inside the streamed transaction");
        assertEquals(2, parsed.stream().filter(n -> "pgrepl-demo".equals(n.path("prefix").asText())).count());
        com.fasterxml.jackson.databind.JsonNode last = parsed.get(parsed.size() - 1);
        assertEquals("commit", last.get("type").asText());
        assertEquals("marker", parsed.get(parsed.size() - 2).get("new").get("name").asText(),
                "stops after the marker transaction");
        assertTrue(err.contains("slot dropped"), err);
        for (String pw : io.pgrepl.testkit.secrets.TestSecrets.all()) {
            assertFalse(err.contains(pw) || out.contains(pw), "no password in the output");
        }
    }
}
