package io.pgrepl.client.snapshot.incremental;

import io.netty.buffer.ByteBuf;
import io.pgrepl.client.PgClientException;
import io.pgrepl.client.PgException;
import io.pgrepl.client.internal.Exchange;
import io.pgrepl.client.internal.ExchangeContext;
import io.pgrepl.client.internal.Frontend;
import io.pgrepl.codec.backend.BackendMessage;
import io.pgrepl.codec.backend.DataRow;
import io.pgrepl.codec.backend.ErrorFields;
import io.pgrepl.codec.copy.CopyOutDecoder;
import io.pgrepl.codec.pgoutput.RelationInfo;
import io.pgrepl.codec.pgoutput.TupleView;
import io.pgrepl.client.replication.Identifiers;
import io.pgrepl.client.snapshot.SnapshotException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * One chunk's {@code COPY (SELECT ...) TO STDOUT} in text format, as a simple query, between the
 * statements of a prefix and a suffix in the same query string (the low mark and the snapshot
 * before, the end of the read transaction and the high mark after: one round trip per chunk); the
 * last row each returns is kept ({@link #prefixRow}, {@link #suffixRow}). A COPY row whose line
 * must be cut after the published columns (a planned table may select unpublished key columns
 * after them) is decoded in place to take its match key first; other rows are stored as sent and
 * keyed at emission. The last row's walked key is taken at the end: the next chunk's lower bound.
 * A NULL in it fails the chunk (a row whose key is NULL is never read: the table's key must be NOT
 * NULL). An error drains to ReadyForQuery, so the connection stays in step.
 */
final class ChunkCopyExchange implements Exchange {
    private final String sql;
    private final RelationInfo selected;
    private final int published;
    private final int[] keyIdx;
    private final int[] matchIdx;
    private final String table;
    private final ChunkRows rows;
    /** Every selected column is published: rows are stored whole, and keyed at emission. */
    private final boolean whole;
    private final CopyOutDecoder decoder = new CopyOutDecoder();
    private final CompletableFuture<ChunkRows> future = new CompletableFuture<>();
    private final DataRow dataRow = new DataRow();
    private String[] prefixRow;
    private String[] suffixRow;
    private boolean copied;
    /** Whether the last row stored was decoded in place ({@link #lastWalk} is its key). */
    private boolean decodedLast;
    private Throwable error;
    private ByteBuf current;
    /** The walked key texts of the last row decoded in place (null values as null). */
    private final String[] lastWalk;

    /**
     * @param prefix statements run before the COPY in the same query string, each ending with
     *               {@code ;}, or empty
     * @param suffix statements run after it, each starting with {@code ;}, or empty
     * @param keyIdx   the walked key's positions in {@code selected}
     * @param matchIdx the positions of the columns the stream's changes are matched by
     * @param table    the table, for messages
     */
    ChunkCopyExchange(String prefix, String select, String suffix, RelationInfo selected, int published, int[] keyIdx,
                      int[] matchIdx, ChunkRows rows, String table) {
        this.sql = prefix + "COPY (" + select + ") TO STDOUT" + suffix;
        this.selected = selected;
        this.published = published;
        this.keyIdx = keyIdx;
        this.matchIdx = matchIdx;
        this.table = table;
        this.rows = rows;
        this.whole = published == selected.columnCount();
        this.lastWalk = new String[keyIdx.length];
    }

    CompletableFuture<ChunkRows> future() {
        return future;
    }

    /** {@return the texts of the last row the prefix returned (null values as null), or null if none; once the future completed} */
    String[] prefixRow() {
        return prefixRow;
    }

    /** {@return the texts of the last row the statements after the COPY returned, or null if none} */
    String[] suffixRow() {
        return suffixRow;
    }

    @Override
    public void start(ExchangeContext ctx) {
        ctx.writeAndFlush(Frontend.query(ctx.alloc(), sql));
    }

    @Override
    public boolean onFrame(byte type, ByteBuf payload) {
        switch (type) {
            case BackendMessage.COPY_OUT_RESPONSE -> {
                copied = true;
                decoder.start(payload, selected, false);
            }
            case BackendMessage.COPY_DATA -> {
                if (error == null) {
                    if (whole && lineOnly(payload)) {
                        // Stored as sent, not decoded: emission decodes every row anyway (and
                        // checks it then); only the last row's key is needed now, at CopyDone.
                        rows.add(payload, payload.readerIndex(), payload.readableBytes(), false, null);
                        decodedLast = false;
                    } else {
                        current = payload;
                        decoder.decode(payload, this::row);
                        decodedLast = true;
                    }
                }
            }
            case BackendMessage.COPY_DONE -> {
                if (error == null) keyLastRow();
                decoder.finish();
            }
            case BackendMessage.ROW_DESCRIPTION, BackendMessage.COMMAND_COMPLETE, BackendMessage.EMPTY_QUERY_RESPONSE -> { }
            case BackendMessage.DATA_ROW -> {
                dataRow.wrap(payload);
                String[] texts = new String[dataRow.columnCount()];
                for (int i = 0; i < texts.length; i++) texts[i] = dataRow.isNull(i) ? null : dataRow.text(i);
                if (copied) suffixRow = texts;
                else prefixRow = texts;
            }
            case BackendMessage.ERROR_RESPONSE -> {
                if (error == null) error = new PgException(ErrorFields.decode(payload, type));
            }
            case BackendMessage.READY_FOR_QUERY -> {
                if (error != null) future.completeExceptionally(error);
                else future.complete(rows);
                return true;
            }
            default -> throw new PgClientException(PgClientException.Kind.PROTOCOL,
                    "protocol violation: unexpected " + BackendMessage.name(type) + " during COPY TO STDOUT");
        }
        return false;
    }

    /** Whether a CopyData payload may be stored as it is: a text line, ended by its newline. */
    private static boolean lineOnly(ByteBuf payload) {
        return payload.isReadable() && payload.getByte(payload.writerIndex() - 1) == '\n';
    }

    /** Takes the last row's walked key, the next chunk's lower bound; a NULL in it fails the chunk. */
    private void keyLastRow() {
        int last = rows.count() - 1;
        if (last < 0) return;
        if (!decodedLast) {
            // Stored whole: every selected column is in the line.
            rows.emit(last, decoder, t -> {
                for (int k = 0; k < keyIdx.length; k++) lastWalk[k] = t.hasValue(keyIdx[k]) ? t.text(keyIdx[k]) : null;
            });
        }
        List<String> key = new ArrayList<>(keyIdx.length);
        for (int k = 0; k < keyIdx.length; k++) {
            if (lastWalk[k] == null) {
                // NULLs sort last and satisfy no comparison: this row, and any other NULL key, would
                // never be read again, and the walk could not go on after it.
                error = new SnapshotException(SnapshotException.Kind.FAILED, "table " + table + ": a row has NULL in key column "
                        + Identifiers.quoteIdentifier(selected.column(keyIdx[k]).name()) + ", and rows whose key is NULL are"
                        + " never read: make the key's columns NOT NULL (or choose a key that is)", table, null);
                return;
            }
            key.add(lastWalk[k]);
        }
        rows.lastKey(key);
    }

    private void row(TupleView t) {
        for (int k = 0; k < keyIdx.length; k++) lastWalk[k] = t.hasValue(keyIdx[k]) ? t.text(keyIdx[k]) : null;
        String key = ChunkRows.key(t, matchIdx); // a primary key, replica identity or (checked) surrogate key: NOT NULL
        int from = current.readerIndex();
        int end = current.writerIndex();
        if (whole) {
            rows.add(current, from, end - from, false, key);
            return;
        }
        // Fields are tab-separated and a tab inside a value is escaped, so the published prefix
        // ends at the published-th tab.
        int cut = from - 1;
        for (int i = 0; i < published; i++) cut = current.indexOf(cut + 1, end, (byte) '\t');
        rows.add(current, from, cut - from, true, key);
    }

    @Override
    public void fail(Throwable cause) {
        future.completeExceptionally(error != null ? error : cause);
    }
}
