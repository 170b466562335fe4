package io.pgrepl.codec.copy;

import io.netty.buffer.ByteBuf;
import io.pgrepl.codec.MalformedMessageException;
import io.pgrepl.codec.backend.BackendMessage;
import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.codec.pgoutput.TupleFiller;
import io.pgrepl.codec.pgoutput.TupleView;

/**
 * Decodes one COPY TO STDOUT result: {@link #start} with the CopyOutResponse, {@link #decode}
 * for each CopyData, {@link #finish} at CopyDone. Each row is delivered as a {@link TupleView}
 * over the CopyData payload (valid during the callback only), column {@code i} being column
 * {@code i} of the relation given to {@code start}. Reusable across results; one thread at a time.
 *
 * <p>The server sends one row per CopyData (binary format: the file header travels with the first
 * row, the trailer alone); the decoder does not rely on that beyond refusing a row split across
 * messages, which the protocol never produces.
 */
public final class CopyOutDecoder {
    /** Receives each decoded row. */
    @FunctionalInterface
    public interface RowHandler {
        /**
         * Called once per row, in the order the server sent them.
         *
         * @param row the row's columns, read in place; valid only during this call
         */
        void onRow(TupleView row);
    }

    private final TupleFiller filler = new TupleFiller();
    private final CopyTextRows text = new CopyTextRows(filler);
    private final CopyBinaryRows binaryRows = new CopyBinaryRows(filler);
    private RelationInfo relation;
    private boolean binary;
    private boolean started;
    private long rows;

    /**
     * Checks a CopyOutResponse against what was asked for: the overall format ({@code binary})
     * and one column per relation column. Resets the row count.
     *
     * @param copyOutResponse the CopyOutResponse payload, readerIndex to writerIndex; not moved
     * @param relation        the relation whose columns the COPY lists, in that order
     * @param binary          whether {@code COPY ... (FORMAT binary)} was asked for
     * @throws MalformedMessageException if the format or column count differs from what was asked
     */
    public void start(ByteBuf copyOutResponse, RelationInfo relation, boolean binary) {
        int base = copyOutResponse.readerIndex();
        int end = copyOutResponse.writerIndex();
        String name = BackendMessage.name(BackendMessage.COPY_OUT_RESPONSE);
        if (end - base < 3) throw new MalformedMessageException(name, 0, "needs 3 bytes, " + (end - base) + " left");
        int format = copyOutResponse.getByte(base);
        int n = copyOutResponse.getShort(base + 1);
        if (n < 0 || base + 3 + 2L * n != end) {
            throw new MalformedMessageException(name, 1, "column count " + n + " does not match the message length");
        }
        if (format != (binary ? 1 : 0)) {
            throw new MalformedMessageException(name, 0, "format " + format + ", asked for " + (binary ? "binary" : "text"));
        }
        if (n != relation.columnCount()) {
            throw new MalformedMessageException(name, 1, n + " columns, the relation has " + relation.columnCount());
        }
        this.relation = relation;
        this.binary = binary;
        this.started = true;
        this.rows = 0;
        binaryRows.reset();
    }

    /**
     * Decodes one CopyData payload (readerIndex to writerIndex) and hands each row to the handler.
     *
     * @param copyData the CopyData payload; not moved
     * @param handler  receives each row; the view is valid only during its call
     * @return the number of rows the payload held (0 for the binary trailer)
     * @throws MalformedMessageException if a row is malformed or split across messages
     * @throws IllegalStateException if {@link #start} was not called for this result
     */
    public int decode(ByteBuf copyData, RowHandler handler) {
        if (!started) throw new IllegalStateException("CopyData before CopyOutResponse");
        int n = binary ? binaryRows.decode(copyData, relation, handler) : text.decode(copyData, relation, handler);
        rows += n;
        return n;
    }

    /**
     * CopyDone: a binary result must have ended with its trailer.
     *
     * @return the number of rows decoded since {@link #start}
     * @throws MalformedMessageException if a binary result ended without its trailer
     * @throws IllegalStateException if {@link #start} was not called for this result
     */
    public long finish() {
        if (!started) throw new IllegalStateException("CopyDone before CopyOutResponse");
        if (binary && !binaryRows.trailerSeen()) {
            throw new MalformedMessageException(BackendMessage.name(BackendMessage.COPY_DONE), 0,
                    "binary COPY ended without its trailer");
        }
        started = false;
        return rows;
    }

    /**
     * Rows decoded so far in the current (or last) result.
     *
     * @return the row count
     */
    public long rows() {
        return rows;
    }
}
