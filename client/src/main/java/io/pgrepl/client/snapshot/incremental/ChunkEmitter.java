package io.pgrepl.client.snapshot.incremental;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.copy.CopyOutDecoder;

/**
 * Emits a chunk's rows that stand: each stored line is decoded again into a {@link
 * io.pgrepl.codec.pgoutput.TupleView} over the table's published columns and handed to the
 * handler, unless the stream changed its key from a transaction the chunk's snapshot did not see
 * or that committed after the low mark. A row stored without its key (every selected column
 * published, so the key columns are in the view) is keyed from the view. Event loop only; the
 * decoder is reused.
 */
final class ChunkEmitter {
    private final CopyOutDecoder decoder = new CopyOutDecoder();
    private long emitted;

    /** {@return the rows emitted} */
    long emit(Chunk ch, SnapshotReadHandler handler) {
        TableRun t = ch.table;
        ChunkRows rows = ch.read.rows();
        XidSnapshot s = ch.read.snapshot();
        ByteBuf response = ChunkRows.copyOutResponse(t.relation);
        try {
            decoder.start(response, t.relation, false);
        } finally {
            response.release();
        }
        long position = ch.position;
        CopyOutDecoder.RowHandler read = row -> handler.onSnapshotRead(row, position);
        emitted = 0;
        if (t.touches.isEmpty()) {
            // An idle table's touch log is empty: no key and no lookup per row then.
            for (int i = 0; i < rows.count(); i++) rows.emit(i, decoder, read);
            emitted = rows.count();
        } else {
            int[] keyIdx = t.plan.matchColumnIndexes();
            long low = ch.lowLsn;
            CopyOutDecoder.RowHandler keyed = row -> {
                if (t.touches.conflicts(ChunkRows.key(row, keyIdx), low, s)) return;
                handler.onSnapshotRead(row, position);
                emitted++;
            };
            for (int i = 0; i < rows.count(); i++) {
                String key = rows.key(i);
                if (key == null) {
                    rows.emit(i, decoder, keyed);
                } else if (!t.touches.conflicts(key, low, s)) {
                    rows.emit(i, decoder, read);
                    emitted++;
                }
            }
        }
        decoder.finish();
        return emitted;
    }
}
