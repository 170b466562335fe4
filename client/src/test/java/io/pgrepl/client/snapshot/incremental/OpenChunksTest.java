package io.pgrepl.client.snapshot.incremental;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.pgrepl.codec.pgoutput.TupleView;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The emission rules of {@link OpenChunks} on hand-made chunks, without a server: the orders and
 * snapshots here are ones a real server gives only by chance (or, for the first, not at all with
 * one connection per worker and read-ahead 1), so they are set up directly.
 */
class OpenChunksTest {
    private static final KeyedTable.Column ID = new KeyedTable.Column("id", "integer", 23);
    private static final KeyedTable.Column V = new KeyedTable.Column("v", "text", 25);

    private final List<String> emitted = new ArrayList<>();
    private final SnapshotReadHandler handler = new SnapshotReadHandler() {
        @Override
        public void onSnapshotRead(TupleView row, long position) {
            emitted.add(row.text(0));
        }
    };
    private final StreamWindow window = new StreamWindow();
    private final OpenChunks chunks = new OpenChunks(window, handler, 2);

    private static TableRun table(int workers) {
        TableRun t = new TableRun("public.t", null, null, null);
        t.planned(new KeyedTable("public", "t", false, List.of(ID, V), 2, new int[] {0}, null, null, 10), 16384, new int[] {16384});
        for (int i = 0; i < workers; i++) t.cursors.add(new TableRun.Cursor(new KeyRange(null, null), null, false));
        return t;
    }

    /** The chunk as a reader hands it over: rows {@code ids} (COPY text lines) under {@code snapshot}, low mark seen. */
    private static void read(Chunk ch, String snapshot, int... ids) {
        ChunkRows rows = new ChunkRows();
        for (int id : ids) {
            ByteBuf line = Unpooled.copiedBuffer(id + "\tv" + id + "\n", StandardCharsets.UTF_8);
            rows.add(line, 0, line.readableBytes(), false, Integer.toString(id));
            line.release();
        }
        if (ids.length > 0) rows.lastKey(List.of(Integer.toString(ids[ids.length - 1])));
        ch.read = new ChunkRead(rows, XidSnapshot.parse(snapshot), 0, 0);
        ch.lowLsn = 100;
    }

    /** What {@code Engine.emitReady} does at a transaction boundary. */
    private void emitReady() {
        for (Chunk ch : chunks.inStartOrder()) if (OpenChunks.ready(ch)) chunks.emit(ch, "slot");
    }

    /**
     * Defence in depth: a worker's read-ahead chunk starts after its elder's rows, so it must not
     * be emitted first even if it were read and passed before the elder passed (its high mark
     * comes later on the same connection, so a real stream does not do that).
     */
    @Test
    void aReadAheadChunkPassedBeforeItsElderWaitsForIt() {
        TableRun t = table(1);
        TableRun.Cursor c = t.cursors.get(0);
        Chunk elder = chunks.open(t, c);
        Chunk ahead = chunks.open(t, c);
        assertTrue(ahead.readAhead);
        read(elder, "100:100:", 2, 4);
        read(ahead, "100:100:", 6, 8);
        ahead.passed = true;
        emitReady();
        assertEquals(List.of(), emitted, "nothing before the elder passed");
        assertFalse(OpenChunks.ready(ahead));
        elder.passed = true;
        emitReady();
        assertEquals(List.of("2", "4", "6", "8"), emitted, "the elder first, then the read-ahead chunk");
        assertEquals(List.of("8"), c.lastKey);
    }

    /**
     * A commit delivered before tracking that a chunk's snapshot misses makes it stale however
     * many commits the stream delivers after tracking started.
     */
    @Test
    void aLingeringCommitCountsAfterManyLaterCommits() {
        window.begin(500, 1_000);
        window.commit(1_000);
        TableRun t = table(1);
        t.trackFrom(window.recentlyDelivered());
        for (int i = 0; i < 5_000; i++) {
            window.begin(600 + i, 2_000 + i);
            window.commit(2_000 + i);
        }
        assertTrue(t.missesEarlierCommit(XidSnapshot.parse("500:700:500")), "500 is still in progress for this snapshot");
        assertFalse(t.missesEarlierCommit(XidSnapshot.parse("501:700:")));
        Chunk ch = chunks.open(t, t.cursors.get(0));
        read(ch, "500:7000:500", 2, 4);
        ch.passed = true;
        emitReady();
        assertEquals(List.of(), emitted, "the stale chunk is read again");
        assertTrue(ch.abandoned);
        assertTrue(t.cursors.get(0).retryAt != 0, "after a pause");
    }

    /**
     * Parallel workers take their snapshots in any order: a chunk emitted under a snapshot that
     * sees the lingering commit does not clear it for another worker's chunk read under an older one.
     */
    @Test
    void aCommitSeenByOneWorkerStillCountsForAnotherWorkersOlderSnapshot() {
        window.begin(500, 1_000);
        window.commit(1_000);
        TableRun t = table(2);
        t.trackFrom(window.recentlyDelivered());
        t.lastSnapshot = XidSnapshot.parse("400:600:500");
        Chunk older = chunks.open(t, t.cursors.get(1));
        t.lastSnapshot = XidSnapshot.parse("600:700:");
        Chunk newer = chunks.open(t, t.cursors.get(0));
        read(newer, "600:700:", 2, 4);
        newer.passed = true;
        read(older, "450:650:500", 1002, 1004);
        emitReady();
        assertEquals(List.of("2", "4"), emitted, "the chunk whose snapshot sees 500 is emitted");
        older.passed = true;
        emitReady();
        assertEquals(List.of("2", "4"), emitted, "the other worker's chunk still misses 500");
        assertTrue(older.abandoned);
    }

    /**
     * A transaction the server listed as prepared when the table was planned, never seen prepared
     * here, counts for every key at its COMMIT PREPARED; the xid type's text and the stream's xid
     * are both the unsigned 32-bit value, here one above 2^31 read in the epoch after its own.
     */
    @Test
    void aTransactionPreparedOnTheServerCountsForEveryKeyAtItsCommit() {
        long xid = 4_294_967_290L;
        TableRun t = table(1);
        t.trackFrom(window.recentlyDelivered());
        window.trackingStarts(t, new long[] {xid});
        Chunk ch = chunks.open(t, t.cursors.get(0));
        read(ch, "4294967290:4294967306:4294967290", 2, 4);
        window.committedLater(xid, 2_000);
        ch.passed = true;
        emitReady();
        assertEquals(List.of(), emitted, "the chunk is read again");
        assertTrue(ch.abandoned);
    }

    /** A prepared transaction's held changes survive a new connection; a streamed one's are sent again from its start. */
    @Test
    void aNewConnectionKeepsPreparedTransactionsOnly() {
        window.beginPrepare(700, 1_000);
        window.prepared();
        window.streamStart(800);
        window.streamStop();
        TableRun t = table(1);
        t.trackFrom(window.recentlyDelivered());
        window.trackingStarts(t, null);
        window.reset();
        Chunk ch = chunks.open(t, t.cursors.get(0));
        read(ch, "600:900:700,800", 2, 4);
        window.committedLater(800, 2_000); // its blocks would come again on the new connection; none did here
        ch.passed = true;
        emitReady();
        assertEquals(List.of("2", "4"), emitted, "the streamed transaction's changes went with the old connection");
        Chunk next = chunks.open(t, t.cursors.get(0));
        read(next, "600:900:700", 6, 8);
        window.committedLater(700, 2_100);
        next.passed = true;
        emitReady();
        assertEquals(List.of("2", "4"), emitted, "the prepared one counts at its COMMIT PREPARED");
        assertTrue(next.abandoned);
    }
}
