package io.pgrepl.client.snapshot.incremental;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The chunks started and neither emitted nor abandoned (event loop only): what their watermarks
 * say, and their emission once read and passed. The {@link Engine} decides which chunks start and
 * what follows an emission; this class only keeps their books.
 */
final class OpenChunks {
    private static final Logger log = LoggerFactory.getLogger(IncrementalSnapshots.class);
    private final String engineId = String.format("%08x", ThreadLocalRandom.current().nextInt());
    /** The open chunks by token, in start order (so a worker's chunks are emitted in key order). */
    private final Map<String, Chunk> chunks = new LinkedHashMap<>();
    private final ChunkEmitter emitter = new ChunkEmitter();
    private final StreamWindow window;
    private final SnapshotReadHandler handler;
    private final int chunkSize;
    private long chunkSeq;

    OpenChunks(StreamWindow window, SnapshotReadHandler handler, int chunkSize) {
        this.window = window;
        this.handler = handler;
        this.chunkSize = chunkSize;
    }

    boolean isEmpty() {
        return chunks.isEmpty();
    }

    /** A copy, in start order: emitting or abandoning one changes the open set. */
    List<Chunk> inStartOrder() {
        return new ArrayList<>(chunks.values());
    }

    /** Opens the next chunk of worker {@code c}; its token names its watermarks. */
    Chunk open(TableRun t, TableRun.Cursor c) {
        Chunk ch = new Chunk(engineId + "-" + (++chunkSeq), t, c, window.lastCommitLsn, t.lastSnapshot);
        ch.readAhead = !c.open.isEmpty();
        c.open.addLast(ch);
        chunks.put(ch.token, ch);
        return ch;
    }

    /** The bytes of the chunks read and not emitted yet. */
    long heldBytes() {
        long n = 0;
        for (Chunk ch : chunks.values()) if (ch.read != null) n += ch.read.rows().bytes();
        return n;
    }

    // ---- watermarks

    /** A watermark arrived (message content or signal-table id): {@code token:low} or {@code token:high}. */
    void mark(String content) {
        int colon = content.lastIndexOf(':');
        if (colon < 0) return;
        Chunk ch = chunks.get(content.substring(0, colon));
        if (ch == null) return; // another engine's, or an abandoned chunk's
        if (content.endsWith(":low")) ch.lowLsn = window.txCommitLsn();
        else if (content.endsWith(":high")) ch.highInTx = true;
    }

    /** The transaction that carried high marks committed, ending at {@code endLsn}: their chunks passed it. */
    void committed(long endLsn) {
        for (Chunk ch : chunks.values()) {
            if (ch.highInTx) {
                ch.highInTx = false;
                ch.passed = true;
                ch.position = endLsn;
            }
        }
    }

    /** Read-only mode: the stream delivered everything before {@code lsn}; chunks whose mark it reached may go. */
    void passedLsn(long lsn) {
        for (Chunk ch : chunks.values()) {
            if (ch.read != null && !ch.passed && Long.compareUnsigned(lsn, ch.markLsn) >= 0) ch.passed = true;
        }
    }

    /** {@return whether a chunk is read and still short of its mark} */
    boolean awaitingMark() {
        for (Chunk ch : chunks.values()) if (ch.read != null && !ch.passed) return true;
        return false;
    }

    // ---- emission

    /** {@return whether {@code ch} is read and passed, and its worker has no older chunk open} */
    static boolean ready(Chunk ch) {
        return ch.read != null && ch.passed && !ch.abandoned && ch.cursor.open.peekFirst() == ch;
    }

    /**
     * Emits a {@linkplain #ready ready} chunk's rows that stand, or abandons it to be read again.
     * {@return whether it was emitted}
     */
    boolean emit(Chunk ch, String slot) {
        TableRun t = ch.table;
        ChunkRead r = ch.read;
        XidSnapshot s = r.snapshot();
        if (ch.lowLsn == -1 || t.missesEarlierCommit(s)) {
            log.debug("slot {}: chunk {} of {} read again (low mark unseen or a transaction unseen by its snapshot)", slot, ch.token, t.name);
            abandonFrom(ch); // a chunk read ahead starts after this one's rows: it goes too
            // The missed transaction may linger (a commit waiting for a synchronous standby): read again after a pause.
            if (ch.lowLsn != -1) ch.cursor.retryAt = System.nanoTime() + retryDelayNanos(++ch.cursor.staleReads);
            return false;
        }
        if (t.touches.truncatedSince(ch.lowLsn, s)) {
            // TRUNCATE is not MVCC-safe: a read under an older snapshot may have seen the table
            // empty and ended it early. The whole chunk goes; it is read again after the truncate.
            // A transaction streamed or prepared before tracking started counts the same: which
            // keys it changed is unknown (StreamWindow#trackingStarts).
            log.debug("slot {}: chunk {} of {} read again after a truncate or an untracked transaction", slot, ch.token, t.name);
            abandonFrom(ch);
            return false;
        }
        chunks.remove(ch.token);
        ch.cursor.open.pollFirst();
        ChunkRows rows = r.rows();
        try {
            long emitted = emitter.emit(ch, handler);
            if (rows.count() > 0) ch.cursor.lastKey = rows.lastKey();
            if (rows.count() < chunkSize) ch.cursor.done = true;
            t.chunks++;
            t.rows += emitted;
            ch.cursor.staleReads = 0;
            t.pruneTouches(window.lastCommitLsn);
            t.pruneDeliveredBefore();
        } finally {
            ch.release();
        }
        return true;
    }

    /** 5 ms after the first stale read, doubling up to half a second: a standby's wait is usually short, and may not be. */
    static long retryDelayNanos(int staleReads) {
        return java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(Math.min(500, 5L << Math.min(staleReads - 1, 7)));
    }

    // ---- abandoning

    void abandon(Chunk ch) {
        ch.abandoned = true;
        ch.release();
        chunks.remove(ch.token);
        ch.cursor.open.remove(ch);
    }

    /** Abandons {@code ch} and the chunks its worker started after it (they start after its rows). */
    void abandonFrom(Chunk ch) {
        TableRun.Cursor c = ch.cursor;
        while (!c.open.isEmpty() && c.open.peekLast() != ch) abandon(c.open.peekLast());
        abandon(ch);
    }

    /** Abandons every open chunk of worker {@code c}. */
    void abandonAll(TableRun.Cursor c) {
        while (!c.open.isEmpty()) abandon(c.open.peekLast());
    }

    /** Abandons every open chunk. */
    void abandonAll() {
        for (Chunk c : inStartOrder()) abandon(c);
    }
}
