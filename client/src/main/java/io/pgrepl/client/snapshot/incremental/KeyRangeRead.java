package io.pgrepl.client.snapshot.incremental;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.copy.CopyOutDecoder;
import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.codec.pgoutput.TupleView;
import java.util.List;
import java.util.function.Consumer;

/**
 * One piece of a key range as {@link KeyRangeReader#read} read it: its rows (held as the server's
 * COPY lines until {@link #close()}), the transaction snapshot they were read under, and the WAL
 * position read with that snapshot. Not thread-safe; {@link #forEach} may run more than once.
 */
public final class KeyRangeRead implements AutoCloseable {
    private final RelationInfo relation;
    private final ChunkRead read;
    private final TransactionSnapshot snapshot;

    KeyRangeRead(RelationInfo relation, ChunkRead read) {
        this.relation = relation;
        this.read = read;
        this.snapshot = TransactionSnapshot.of(read.snapshot());
    }

    /** {@return the rows' relation, as the stream's Relation message describes the table: the published columns in attnum order with their typmods, replica identity columns flagged} */
    public RelationInfo relation() {
        return relation;
    }

    /** {@return the transaction snapshot the rows were read under} */
    public TransactionSnapshot snapshot() {
        return snapshot;
    }

    /** {@return the WAL position read in the same transaction, after its snapshot (insert position on a primary, replay position on a standby)} */
    public long lsn() {
        return read.lowLsn();
    }

    /** {@return how many rows were read} */
    public int rowCount() {
        return read.rows().count();
    }

    /** {@return the last row's key texts (the next piece's lower bound), or null when no row was read} */
    public List<String> lastKey() {
        return read.rows().lastKey();
    }

    /**
     * Decodes every row in key order and hands it to {@code rows}; a view is valid during its call
     * only. The key columns are at {@link KeyedTable#keyColumnIndexes()} of the table read.
     *
     * @param rows receives each row
     */
    public void forEach(Consumer<TupleView> rows) {
        CopyOutDecoder decoder = new CopyOutDecoder();
        ByteBuf response = ChunkRows.copyOutResponse(relation);
        try {
            decoder.start(response, relation, false);
        } finally {
            response.release();
        }
        ChunkRows r = read.rows();
        CopyOutDecoder.RowHandler handler = rows::accept;
        for (int i = 0; i < r.count(); i++) r.emit(i, decoder, handler);
        decoder.finish();
    }

    /** Releases the rows. */
    @Override
    public void close() {
        read.rows().release();
    }
}
