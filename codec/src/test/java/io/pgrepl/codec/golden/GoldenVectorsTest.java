package io.pgrepl.codec.golden;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import io.netty.buffer.ByteBuf;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Decodes every committed capture from real servers (golden/pg&lt;major&gt;/&lt;variant&gt;.tsv, written by
 * integration-tests' GoldenVectorsWriterTest) through the views and through the records, and
 * compares the committed changes with what the server's own test_decoding plugin printed for the
 * same WAL: operation, table, column names and types, values, NULL versus unchanged TOAST, key
 * versus new tuple, transaction grouping and order, truncate options, logical messages.
 */
class GoldenVectorsTest {

    static Path root() throws Exception {
        URL url = GoldenVectorsTest.class.getResource("/golden");
        if (url == null) throw new AssertionError("golden vectors missing from the test classpath");
        return Path.of(url.toURI());
    }

    static List<Path> captures() throws Exception {
        try (Stream<Path> s = Files.walk(root())) {
            return s.filter(p -> p.toString().endsWith(".tsv")).sorted().toList();
        }
    }

    @TestFactory
    Stream<DynamicTest> everyCaptureMatchesTestDecoding() throws Exception {
        List<Path> files = captures();
        assertFalse(files.isEmpty());
        return files.stream().map(f -> dynamicTest(f.getParent().getFileName() + "/" + f.getFileName(), () -> check(f)));
    }

    private static void check(Path capture) throws Exception {
        int major = Integer.parseInt(capture.getParent().getFileName().toString().substring(2));
        String variant = capture.getFileName().toString().replace(".tsv", "");
        List<ByteBuf> messages = PgOutputChanges.messages(Files.readAllLines(capture, StandardCharsets.UTF_8));
        if (variant.endsWith("-filtered")) {
            // Column list and row filter: test_decoding sees every column and row, so the
            // expectation is written out here from the workload and the publication's definition
            // (t_filt (id, flag, a) WHERE (flag)): updates that leave the filter become DELETEs,
            // updates that enter it INSERTs, and secret is never sent.
            String expected = String.join("\n", FILTERED);
            assertEquals(expected, String.join("\n", PgOutputChanges.viaViews(messages)), "views vs expected");
            assertEquals(expected, String.join("\n", PgOutputChanges.viaRecords(messages)), "records vs expected");
            return;
        }
        // origin=none drops changes that came through a replication origin: test_decoding's only-local.
        String oracleName = variant.endsWith("origin-none") ? "test_decoding-only-local.txt" : "test_decoding.txt";
        List<String> expected = new ArrayList<>(TestDecodingOracle.parseFile(
                Files.readAllLines(capture.resolveSibling(oracleName), StandardCharsets.UTF_8)));
        // pgoutput sends logical messages only with messages=true, which exists from 14.
        if (major < 14) expected.removeIf(l -> l.startsWith("MESSAGE "));
        // t_filt is only in the filtered publication (see above).
        expected.removeIf(l -> l.contains(" public.t_filt "));
        expected = dropEmptyTransactions(expected);

        List<String> views = PgOutputChanges.viaViews(messages);
        List<String> records = PgOutputChanges.viaRecords(messages);
        assertEquals(String.join("\n", expected), String.join("\n", views), "views vs test_decoding, " + capture);
        assertEquals(String.join("\n", expected), String.join("\n", records), "records vs test_decoding, " + capture);
    }

    /** What golden_pub_filtered must deliver for the workload's t_filt statements (15+). */
    private static final List<String> FILTERED = List.of(
            "BEGIN", "INSERT public.t_filt new: id[integer]='1' flag[boolean]='true' a[text]='a1'", "COMMIT",
            // (2, false) -> (2, true): enters the filter.
            "BEGIN", "INSERT public.t_filt new: id[integer]='2' flag[boolean]='true' a[text]='a2'", "COMMIT",
            // (1, true) -> (1, false): leaves it; the old key only.
            "BEGIN", "DELETE public.t_filt old: id[integer]='1' flag[boolean]='true'", "COMMIT",
            "BEGIN", "UPDATE public.t_filt new: id[integer]='2' flag[boolean]='true' a[text]='a2b'", "COMMIT",
            "BEGIN", "DELETE public.t_filt old: id[integer]='2' flag[boolean]='true'", "COMMIT");

    private static List<String> dropEmptyTransactions(List<String> l) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < l.size(); i++) {
            if (l.get(i).equals(Changes.BEGIN) && i + 1 < l.size() && l.get(i + 1).equals(Changes.COMMIT)) {
                i++;
                continue;
            }
            out.add(l.get(i));
        }
        return out;
    }

    /** The captures must cover what the workload was built to produce, or the comparison proves little. */
    @Test
    void capturesCoverTheWorkload() throws Exception {
        Path pg17 = root().resolve("pg17");
        List<String> td = TestDecodingOracle.parseFile(Files.readAllLines(pg17.resolve("test_decoding.txt")));
        String all = String.join("\n", td);
        assertTrue(all.contains("TOAST"), "an unchanged TOAST column");
        assertTrue(all.contains("TRUNCATE public.t_child,public.t_parent cascade restart_seqs"), all);
        assertTrue(all.contains("Schéma Ünï.Mixed\"Case Tbl"), "quoted non-ASCII names");
        assertTrue(all.contains("m[mood]='happy'"), "enum");
        assertTrue(all.contains("MESSAGE non-tx golden-nt"), "non-transactional message");
        // Streaming, subtransaction abort and two-phase messages are in the pgoutput captures.
        String stream = String.join("\n", Files.readAllLines(pg17.resolve("proto4-parallel.tsv")));
        String twoPhase = String.join("\n", Files.readAllLines(pg17.resolve("proto3-twophase.tsv")));
        for (String type : new String[] {"\t53", "\t45", "\t63", "\t41", "\t59", "\t4f", "\t54", "\t4d"}) {
            assertTrue(stream.contains(type), "message type " + type + " in proto4-parallel");
        }
        // Stream Abort: the rolled-back transaction, savepoint s1, and savepoints b and c (nested).
        long aborts = Files.readAllLines(pg17.resolve("proto2-stream.tsv")).stream().filter(l -> l.contains("\t41")).count();
        assertEquals(4, aborts, "Stream Abort messages in proto2-stream");
        // PG18: the stored generated column is published and test_decoding agrees on its value.
        String td18 = String.join("\n", TestDecodingOracle.parseFile(Files.readAllLines(root().resolve("pg18/test_decoding.txt"))));
        assertTrue(td18.contains("INSERT public.t_gen new: id[integer]='1' a[integer]='21' g[integer]='42'"), td18);
        for (String type : new String[] {"\t62", "\t50", "\t4b", "\t72", "\t70"}) {
            assertTrue(twoPhase.contains(type), "message type " + type + " in proto3-twophase");
        }
    }

    /**
     * Every capture holds every message type its variant can produce on its major, so a type the
     * server stopped sending (or a capture regenerated from a thinner workload) fails here.
     */
    @TestFactory
    Stream<DynamicTest> everyExpectedMessageTypeIsPresent() throws Exception {
        return captures().stream().map(f -> dynamicTest(f.getParent().getFileName() + "/" + f.getFileName(), () -> {
            int major = Integer.parseInt(f.getParent().getFileName().toString().substring(2));
            String variant = f.getFileName().toString().replace(".tsv", "");
            java.util.Set<Character> present = new java.util.TreeSet<>();
            for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
                if (line.isEmpty()) continue;
                String hex = line.substring(line.indexOf('\t') + 1);
                present.add((char) Integer.parseInt(hex.substring(0, 2), 16));
            }
            java.util.Set<Character> expected = new java.util.TreeSet<>(expectedTypes(major, variant));
            expected.removeAll(present);
            assertTrue(expected.isEmpty(), "PG " + major + " " + variant + " lacks " + expected + ", has " + present);
        }));
    }

    static List<Character> expectedTypes(int major, String variant) {
        List<Character> t = new ArrayList<>(List.of('B', 'C', 'R', 'I', 'U', 'D'));
        if (variant.endsWith("-filtered")) return t;
        t.add('Y'); // the enum column's type
        if (major >= 11) t.add('T');
        if (major >= 14) t.add('M');
        if (!variant.endsWith("origin-none")) t.add('O');
        if (variant.contains("stream") || variant.contains("parallel") || variant.contains("twophase")) {
            t.addAll(List.of('S', 'E', 'c', 'A'));
        }
        if (variant.contains("twophase")) t.addAll(List.of('b', 'P', 'K', 'r', 'p'));
        return t;
    }

    /** Which variants each major must have: a missing file would otherwise go unnoticed. */
    @Test
    void everyMajorHasItsVariants() throws Exception {
        for (int major : new int[] {10, 12, 13, 14, 15, 16, 17, 18}) {
            List<String> want = new ArrayList<>(List.of("proto1"));
            if (major >= 14) want.addAll(List.of("proto1-binary", "proto2-stream"));
            if (major >= 15) want.addAll(List.of("proto3-twophase", "proto1-filtered"));
            if (major >= 16) want.addAll(List.of("proto4-parallel", "proto4-twophase-parallel", "proto4-origin-none"));
            for (String v : want) {
                assertTrue(Files.isRegularFile(root().resolve("pg" + major).resolve(v + ".tsv")), "pg" + major + "/" + v + ".tsv");
            }
        }
    }

    /** The oracle parser itself, on hand-written test_decoding lines. */
    @Test
    void oracleParsesTestDecodingSyntax() {
        assertEquals("INSERT public.t new: id[integer]='1' name[text]='it\\'s' n[integer]=NULL",
                TestDecodingOracle.parseLine("table public.t: INSERT: id[integer]:1 name[text]:'it''s' n[integer]:null"));
        assertEquals("UPDATE s p.T old: K[integer]='1' new: K[integer]='2' b[text]=TOAST",
                TestDecodingOracle.parseLine(
                        "table \"s p\".\"T\": UPDATE: old-key: \"K\"[integer]:1 new-tuple: \"K\"[integer]:2 b[text]:unchanged-toast-datum"));
        assertEquals("DELETE public.t old: a[text[]]='{x}'",
                TestDecodingOracle.parseLine("table public.t: DELETE: a[text[]]:'{x}'"));
        assertEquals("TRUNCATE public.a,public.b", TestDecodingOracle.parseLine("table public.b, public.a: TRUNCATE: (no-flags)"));
        assertEquals("MESSAGE tx p 616263", TestDecodingOracle.parseLine("message: transactional: 1 prefix: p, sz: 3 content:abc"));
    }
}
