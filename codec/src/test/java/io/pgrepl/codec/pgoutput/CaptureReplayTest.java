package io.pgrepl.codec.pgoutput;

import static org.junit.jupiter.api.Assertions.*;

import io.pgrepl.codec.PgTime;
import io.pgrepl.codec.pgoutput.record.*;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Replays a capture file the way golden vectors from real servers will be replayed. */
class CaptureReplayTest {
    @Test
    void replaysAHandAssembledProtocolV1Transaction() throws Exception {
        List<PgOutputCapture.Entry> entries = PgOutputCapture.resource("/captures/handwritten-v1.tsv");
        assertEquals(6, entries.size());
        assertEquals(0x1A2B3C8L, entries.get(0).lsn());

        PgOutputDecoder decoder = new PgOutputDecoder();
        List<PgOutputRecord> records = new ArrayList<>();
        PgOutputHandler h = PgOutputRecords.collector(records::add);
        for (PgOutputCapture.Entry e : entries) decoder.decode(e.buffer(), h);

        Begin begin = (Begin) records.get(0);
        assertEquals(750, begin.xid());
        assertEquals(Instant.parse("2024-01-02T03:24:05.123456Z"), PgTime.toInstant(begin.commitTimeMicros()));
        Relation rel = (Relation) records.get(1);
        assertEquals("items", rel.name());
        assertEquals(List.of("id", "note"), rel.columns().stream().map(ColumnInfo::name).toList());
        Insert ins = (Insert) records.get(2);
        assertEquals(1, ins.newTuple().get("id").decode());
        assertEquals("hello, world", ins.newTuple().get("note").decode());
        Update upd = (Update) records.get(3);
        assertEquals('K', upd.oldTupleKind());
        assertEquals(ColumnKind.ABSENT, upd.oldTuple().get("note").kind());
        assertEquals(ColumnKind.UNCHANGED_TOAST, upd.newTuple().get("note").kind());
        assertEquals(2, upd.newTuple().get("id").decode());
        Delete del = (Delete) records.get(4);
        assertEquals(ColumnKind.ABSENT, del.oldTuple().get("note").kind());
        Commit commit = (Commit) records.get(5);
        assertEquals(0x1A2B5F8L, commit.endLsn());
        assertEquals(entries.get(5).lsn(), commit.endLsn());
    }

    @Test
    void parsesExtraColumnsAndOptionalPrefix() {
        List<PgOutputCapture.Entry> e = PgOutputCapture.parse("# c\n\n0/10\t745\t45\n1/0000000A\t\\x4500\n");
        assertEquals(2, e.size());
        assertEquals(0x10, e.get(0).lsn());
        assertArrayEquals(new byte[] {'E'}, e.get(0).data());
        assertEquals(0x1_0000_000AL, e.get(1).lsn());
    }
}
