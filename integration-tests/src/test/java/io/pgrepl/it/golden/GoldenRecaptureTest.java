package io.pgrepl.it.golden;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import io.netty.buffer.Unpooled;
import io.pgrepl.codec.pgoutput.ColumnInfo;
import io.pgrepl.codec.pgoutput.PgOutputDecoder;
import io.pgrepl.codec.pgoutput.record.*;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.PgVersions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Reruns the golden workload on a live server of every major of {@code -Dpg.versions} and checks
 * that the recapture decodes to the same messages as the committed vectors, LSNs, xids, times
 * and OIDs of user objects aside; test_decoding's text must match too (LSNs aside). A server whose
 * output drifted, or a committed file that no longer matches what servers send, fails here.
 */
class GoldenRecaptureTest {

    @TestFactory
    Stream<DynamicTest> recaptureMatchesCommittedVectors() {
        return PgVersions.matrix().stream().map(major -> dynamicTest("PG " + major, () -> check(major)));
    }

    private static void check(int major) throws Exception {
        Path dir = GoldenFiles.directory().resolve("pg" + major);
        assertTrue(Files.isDirectory(dir), "no committed vectors for PG " + major + " in " + dir);
        GoldenCapture.Capture c;
        try (PgServer server = GoldenCapture.start(major)) {
            c = GoldenCapture.capture(server);
        }
        for (Map.Entry<String, List<String>> e : c.pgoutput().entrySet()) {
            List<String> committed = Files.readAllLines(dir.resolve(e.getKey() + ".tsv"), StandardCharsets.UTF_8);
            assertEquals(String.join("\n", normalise(committed)), String.join("\n", normalise(e.getValue())),
                    "PG " + major + " " + e.getKey());
        }
        for (Map.Entry<String, List<String>> e : c.testDecoding().entrySet()) {
            List<String> committed = Files.readAllLines(dir.resolve(e.getKey() + ".txt"), StandardCharsets.UTF_8);
            assertEquals(String.join("\n", dataOnly(committed)), String.join("\n", dataOnly(e.getValue())),
                    "PG " + major + " " + e.getKey());
        }
    }

    private static List<String> dataOnly(List<String> lines) {
        return lines.stream().filter(l -> !l.isEmpty()).map(l -> l.substring(l.indexOf('\t') + 1)).toList();
    }

    /** Each message as text without LSNs, xids, times, or OIDs the server assigns per cluster. */
    static List<String> normalise(List<String> lines) {
        PgOutputDecoder decoder = new PgOutputDecoder();
        List<PgOutputRecord> records = new ArrayList<>();
        var collector = PgOutputRecords.collector(records::add);
        for (String line : lines) {
            if (line.isEmpty()) continue;
            byte[] bytes = HexFormat.of().parseHex(line.substring(line.indexOf('\t') + 1));
            decoder.decode(Unpooled.wrappedBuffer(bytes), collector);
        }
        Map<Integer, String> relations = new HashMap<>();
        List<String> out = new ArrayList<>();
        for (PgOutputRecord r : records) {
            String x;
            if (r instanceof Relation rel) {
                relations.put(rel.oid(), rel.namespace() + "." + rel.name());
                StringBuilder sb = new StringBuilder("Relation ").append(streamed(rel.xid())).append(rel.namespace())
                        .append('.').append(rel.name()).append(' ').append(rel.replicaIdentity());
                for (ColumnInfo ci : rel.columns()) {
                    sb.append(' ').append(ci.name()).append('/').append(ci.flags()).append('/')
                            .append(ci.typeOid() < 16384 ? Integer.toString(ci.typeOid()) : "user").append('/').append(ci.typmod());
                }
                x = sb.toString();
            } else if (r instanceof Type t) {
                x = "Type " + streamed(t.xid()) + t.namespace() + "." + t.name();
            } else if (r instanceof Insert i) {
                x = "Insert " + streamed(i.xid()) + relations.get(i.relationOid()) + " " + tuple(i.newTuple());
            } else if (r instanceof Update u) {
                x = "Update " + streamed(u.xid()) + relations.get(u.relationOid()) + " " + u.oldTupleKind()
                        + (u.oldTuple() == null ? "" : tuple(u.oldTuple())) + " " + tuple(u.newTuple());
            } else if (r instanceof Delete d) {
                x = "Delete " + streamed(d.xid()) + relations.get(d.relationOid()) + " " + d.oldTupleKind() + tuple(d.oldTuple());
            } else if (r instanceof Truncate t) {
                List<String> names = t.relationOids().stream().map(relations::get).sorted().toList();
                x = "Truncate " + streamed(t.xid()) + t.options() + " " + names;
            } else if (r instanceof Message m) {
                x = "Message " + streamed(m.xid()) + m.flags() + " " + m.prefix() + " " + HexFormat.of().formatHex(m.content());
            } else if (r instanceof Origin o) {
                x = "Origin " + o.name() + " " + Long.toHexString(o.originLsn());
            } else if (r instanceof StreamStart s) {
                x = "StreamStart " + s.firstSegment();
            } else if (r instanceof StreamAbort a) {
                x = "StreamAbort " + (a.xid() == a.subXid() ? "whole" : "sub") + " " + a.hasAbortInfo();
            } else if (r instanceof BeginPrepare b) {
                x = "BeginPrepare " + b.gid();
            } else if (r instanceof Prepare p) {
                x = "Prepare " + p.gid();
            } else if (r instanceof StreamPrepare p) {
                x = "StreamPrepare " + p.gid();
            } else if (r instanceof CommitPrepared p) {
                x = "CommitPrepared " + p.gid();
            } else if (r instanceof RollbackPrepared p) {
                x = "RollbackPrepared " + p.gid();
            } else {
                x = r.getClass().getSimpleName(); // Begin, Commit, StreamStop, StreamCommit: only times/LSNs/xids
            }
            out.add(x);
        }
        return out;
    }

    private static String streamed(long xid) {
        return xid == 0 ? "" : "[xid] ";
    }

    private static String tuple(Tuple t) {
        StringBuilder sb = new StringBuilder("(");
        for (ColumnValue v : t.columns()) {
            sb.append(v.name()).append(':').append(v.kind());
            if (v.bytes() != null) sb.append('=').append(HexFormat.of().formatHex(v.bytes()));
            sb.append(' ');
        }
        return sb.append(')').toString();
    }
}
