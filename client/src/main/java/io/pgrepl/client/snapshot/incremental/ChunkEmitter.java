package io.pgrepl.client.snapshot.incremental;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.copy.CopyOutDecoder;

/**
 * Emits a chunk's rows that stand: each stored line is decoded again into a {@link
 * io.pgrepl.codec.pgoutput.TupleView} over the table's published columns and handed to the
 * handler, unless the stream changed its key from a transaction the chunk's snapshot did not see
 * or that committed after the low mark. Event loop only; the decoder is reused.
 */
final class ChunkEmitter {
    private final CopyOutDecoder decoder = new CopyOutDecoder();

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
        long emitted = 0;
        long position = ch.position;
        CopyOutDecoder.RowHandler read = row -> handler.onSnapshotRead(row, position);
        // An idle table's touch log is empty: no lookup per row then.
        boolean touched = !t.touches.isEmpty();
        for (int i = 0; i < rows.count(); i++) {
            if (touched && t.touches.conflicts(rows.key(i), ch.lowLsn, s)) continue;
            rows.emit(i, decoder, read);
            emitted++;
        }
        decoder.finish();
        return emitted;
    }
}
