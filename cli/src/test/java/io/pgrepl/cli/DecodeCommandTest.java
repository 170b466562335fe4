package io.pgrepl.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code pgrepl decode} on captures from a real PostgreSQL 17 (the codec module's golden vectors).
 * Expected values come from the workload's SQL (GoldenWorkload in integration-tests), not from
 * the decoder.
 */
class DecodeCommandTest {
    private static final Path GOLDEN = Path.of("../codec/src/test/resources/golden/pg17");

    private record Result(int exit, List<String> lines, String err) {
        /**
         * The first line (parsed with a real JSON parser) where every {@code path, value} pair
         * holds: a dotted path to a field, and its expected text (JSON null for a null value,
         * "*" for any value that is present).
         */
        JsonNode line(String... pathValue) {
            for (JsonNode n : Cli.parseLines(String.join("\n", lines))) {
                boolean all = true;
                for (int i = 0; i < pathValue.length; i += 2) {
                    JsonNode v = n;
                    for (String part : pathValue[i].split("\\.")) v = v == null ? null : v.get(part);
                    String want = pathValue[i + 1];
                    all &= v != null && (want == null ? v.isNull() : want.equals("*") || (!v.isNull() && v.asText().equals(want)));
                }
                if (all) return n;
            }
            throw new AssertionError("no line with " + java.util.Arrays.toString(pathValue) + " in\n" + String.join("\n", lines));
        }
    }

    private static Result run(String stdin, String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit;
        DecodeCommand cmd = new DecodeCommand(new ByteArrayInputStream(stdin.getBytes(StandardCharsets.UTF_8)));
        PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
        try {
            exit = cmd.run(args, o, e);
        } catch (Exception ex) {
            throw new AssertionError(ex);
        }
        String text = out.toString(StandardCharsets.UTF_8);
        return new Result(exit, text.isEmpty() ? List.of() : List.of(text.split("\n")), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void decodesAProtocol3CaptureWithOneObjectPerMessage() throws Exception {
        Path file = GOLDEN.resolve("proto3-twophase.tsv");
        Result r = run("", file.toString());
        assertEquals(0, r.exit(), r.err());
        List<String> input = Files.readAllLines(file);
        assertEquals(input.size(), r.lines().size());
        List<JsonNode> parsed = Cli.parseLines(String.join("\n", r.lines()));
        for (int i = 0; i < input.size(); i++) {
            String lsn = input.get(i).substring(0, input.get(i).indexOf('\t'));
            assertTrue(parsed.get(i).get("type").isTextual(), r.lines().get(i));
            assertEquals(lsn, parsed.get(i).get("lsn").asText(), r.lines().get(i));
        }
        // Awkward text, exactly as inserted.
        r.line("type", "insert", "new.id", "3", "new.name", "it's \"quoted\" back\\slash", "new.note", "tab\there",
                "new.flag", null);
        r.line("new.id", "4", "new.name", "line1\nline2\r\nend", "new.note", "ünïcødé ✓ 漢字");
        r.line("new.id", "2", "new.name", null, "new.note", "");
        // Key change under REPLICA IDENTITY DEFAULT: key tuple with the key column only.
        JsonNode keyChange = r.line("type", "update", "key.id", "2", "new.id", "10");
        assertEquals(1, keyChange.get("key").size());
        // FULL: the whole old row.
        JsonNode full = r.line("type", "delete", "table", "t_full", "old.id", "2");
        assertEquals(Cli.parse("{\"id\":\"2\",\"a\":null,\"b\":\"2\"}"), full.get("old"));
        // Unchanged TOAST: left out and listed.
        JsonNode toast = r.line("type", "update", "table", "t_toast");
        assertEquals(Cli.parse("[\"big\"]"), toast.get("unchanged_toast"));
        assertFalse(toast.get("new").has("big"), toast.toString());
        JsonNode trunc = r.line("type", "truncate");
        assertEquals(Cli.parse("[\"public.t_parent\",\"public.t_child\"]"), trunc.get("relations"));
        assertTrue(trunc.get("cascade").asBoolean() && trunc.get("restart_identity").asBoolean(), trunc.toString());
        r.line("type", "origin", "origin_lsn", "0/ABCDEF", "name", "golden_origin");
        r.line("type", "message", "transactional", "true", "prefix", "golden", "content", "7478206d65737361676520c3bc");
        r.line("type", "message", "transactional", "false", "prefix", "golden-nt");
        r.line("type", "type", "namespace", "public", "name", "mood");
        JsonNode mixed = r.line("type", "relation", "namespace", "Schéma Ünï", "name", "Mixed\"Case Tbl");
        assertEquals(Cli.parse("{\"name\":\"Key\",\"type_oid\":23,\"type_modifier\":-1,\"key\":true}"),
                mixed.get("columns").get(0));
        JsonNode dflt = r.line("type", "relation", "name", "t_default");
        assertTrue(java.util.stream.StreamSupport.stream(dflt.get("columns").spliterator(), false)
                .anyMatch(c -> c.get("type_oid").asInt() == 1043 && c.get("type_modifier").asInt() == 44), dflt.toString());
        assertTrue(r.line("type", "commit_prepared", "gid", "golden gid ü").get("commit_time").asText().startsWith("20"));
        r.line("type", "rollback_prepared", "gid", "golden-rollback");
        assertTrue(r.line("type", "begin_prepare").get("prepare_time").asText().startsWith("20"));
        r.line("type", "stream_start", "first_segment", "true");
        // Inside a stream block, DML carries the (sub)transaction xid.
        assertTrue(r.line("type", "insert", "table", "t_big", "xid", "*").get("xid").isIntegralNumber());
        r.line("type", "stream_abort");
        assertTrue(r.line("type", "stream_commit").get("commit_lsn").asText().startsWith("0/"));
    }

    @Test
    void streamAbortCarriesAbortLsnAndTimeWithParallelStreaming() {
        Result r = run("", GOLDEN.resolve("proto4-parallel.tsv").toString());
        assertEquals(0, r.exit(), r.err());
        JsonNode abort = r.line("type", "stream_abort", "abort_lsn", "*", "abort_time", "*");
        assertTrue(abort.get("abort_lsn").asText().startsWith("0/") && abort.get("abort_time").asText().startsWith("20"));
    }

    @Test
    void binaryValuesAreHex() {
        Result r = run("", GOLDEN.resolve("proto1-binary.tsv").toString());
        assertEquals(0, r.exit(), r.err());
        // id 3 as int4 send format; 'it''s...' as UTF-8 text send format.
        r.line("type", "insert", "new.id.binary", "00000003", "new.flag", null);
        r.line("new.id.binary", "00000001", "new.flag.binary", "01", "new.name.binary", "706c61696e");
    }

    @Test
    void readsStdinAndAcceptsBothHexPrefixes() throws Exception {
        List<String> input = Files.readAllLines(GOLDEN.resolve("proto1.tsv")).subList(0, 6);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < input.size(); i++) {
            String l = input.get(i);
            int tab = l.indexOf('\t');
            String prefix = i % 3 == 0 ? "" : i % 3 == 1 ? "\\x" : "\\\\x";
            sb.append(l, 0, tab + 1).append(prefix).append(l.substring(tab + 1)).append('\n');
        }
        Result plain = run(String.join("\n", input) + "\n", "-");
        Result prefixed = run(sb.toString());
        assertEquals(0, prefixed.exit(), prefixed.err());
        assertEquals(6, prefixed.lines().size());
        assertEquals(plain.lines(), prefixed.lines());
    }

    @Test
    void badLineIsReportedAfterEverythingBeforeIt() throws Exception {
        List<String> input = Files.readAllLines(GOLDEN.resolve("proto1.tsv")).subList(0, 4);
        String text = String.join("\n", input) + "\n0/1\tZZ\n" + input.get(0) + "\n";
        Result r = run(text);
        assertEquals(1, r.exit());
        assertEquals(4, r.lines().size());
        assertTrue(r.err().contains("line 5"), r.err());

        Result truncated = run(input.get(0) + "\n" + input.get(1).substring(0, input.get(1).length() - 4) + "\n");
        assertEquals(1, truncated.exit());
        assertEquals(1, truncated.lines().size());
        assertTrue(truncated.err().contains("line 2"), truncated.err());

        Result noTab = run("0/1 4200\n");
        assertEquals(1, noTab.exit());
        assertTrue(noTab.err().contains("line 1: expected LSN<TAB>HEX"), noTab.err());
    }

    @Test
    void jsonEscapesControlCharacters() {
        assertEquals("\"a\\u0001b\\\"\\\\\\n\\u2028ü\"", Json.appendQuoted(new StringBuilder(), "a\u0001b\"\\\n\u2028ü").toString());
    }

    @Test
    void mainListsDecode() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int exit = Main.run(new String[] {"--help"}, new PrintStream(out, true, StandardCharsets.UTF_8), System.err);
        assertEquals(0, exit);
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("decode"));
    }
}
