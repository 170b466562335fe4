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
        // origin=none drops changes that came through a replication origin: test_decoding's only-local.
        String oracleName = variant.endsWith("origin-none") ? "test_decoding-only-local.txt" : "test_decoding.txt";
        List<String> expected = new ArrayList<>(TestDecodingOracle.parseFile(
                Files.readAllLines(capture.resolveSibling(oracleName), StandardCharsets.UTF_8)));
        // pgoutput sends logical messages only with messages=true, which exists from 14.
        if (major < 14) expected.removeIf(l -> l.startsWith("MESSAGE "));
        expected = dropEmptyTransactions(expected);

        List<ByteBuf> messages = PgOutputChanges.messages(Files.readAllLines(capture, StandardCharsets.UTF_8));
        List<String> views = PgOutputChanges.viaViews(messages);
        List<String> records = PgOutputChanges.viaRecords(messages);
        assertEquals(String.join("\n", expected), String.join("\n", views), "views vs test_decoding");
        assertEquals(String.join("\n", expected), String.join("\n", records), "records vs test_decoding");
    }

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
        for (String type : new String[] {"\t62", "\t50", "\t4b", "\t72"}) {
            assertTrue(twoPhase.contains(type), "message type " + type + " in proto3-twophase");
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
