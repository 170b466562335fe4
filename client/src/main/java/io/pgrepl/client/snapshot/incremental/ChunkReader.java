package io.pgrepl.client.snapshot.incremental;

import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.internal.Transports;
import io.pgrepl.client.replication.Identifiers;
import io.pgrepl.codec.Lsn;
import io.pgrepl.codec.pgoutput.RelationInfo;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;

/**
 * Reads chunks of one table on one ordinary connection, one simple query (one round trip) per
 * chunk: the low watermark in a transaction of its own, then in one REPEATABLE READ transaction
 * the snapshot and the chunk's COPY, then the end of that transaction and the high watermark.
 * Statements of one query string run in order, so the low mark commits before the snapshot is
 * taken and the high mark after the read transaction ended. The low mark commits asynchronously
 * (it reaches the stream with the high mark's flush, which is synchronous); a chunk waits for one
 * WAL flush, not two.
 */
final class ChunkReader {
    /** The logical message prefix of watermarks. */
    static final String WATERMARK_PREFIX = "pgrepl-wm";
    /** Debezium's signal types for the window marks, so its tooling ignores them as it does its own. */
    static final String OPEN_TYPE = "snapshot-window-open";
    static final String CLOSE_TYPE = "snapshot-window-close";
    private static final String LSN = "(CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_insert_lsn() END)::text";

    private final PgConnection connection;
    private final WatermarkMode mode;
    private final String signalTable;
    private final String snapshotFunction;

    ChunkReader(PgConnection connection, WatermarkMode mode, String signalTable) {
        this.connection = connection;
        this.mode = mode;
        this.signalTable = signalTable;
        this.snapshotFunction = connection.serverMajor() >= 13 ? "pg_current_snapshot()" : "txid_current_snapshot()";
    }

    /**
     * Opens a reader: an ordinary connection with the session settings the reads rely on, on an
     * event loop of its group other than the stream's ({@code streamLoop}) where there is one, so a
     * chunk's COPY is received while the stream's loop emits the chunk before it (on one loop,
     * either waits for the other).
     */
    static CompletionStage<ChunkReader> open(IncrementalOptions options, WatermarkMode mode, String timeZone, EventLoop streamLoop) {
        String signal = options.signalTable() == null ? null : Identifiers.quoteQualifiedName(options.signalTable());
        return PgConnection.connect(config(options.ordinary(), streamLoop)).thenCompose(c -> {
            // synchronous_commit on: the walsender sends only flushed WAL, and an asynchronous
            // high mark would wait for the WAL writer (up to wal_writer_delay) before the stream sees it.
            String set = "SET application_name = 'pgrepl-incremental'" + (mode == WatermarkMode.READ_ONLY ? ""
                    : "; SET synchronous_commit = on") + (timeZone == null ? "" : "; SET TimeZone = " + Identifiers.quoteLiteral(timeZone));
            return c.simpleQuery(set).handle((v, e) -> {
                if (e != null) {
                    c.close();
                    throw e instanceof CompletionException ce ? ce : new CompletionException(e);
                }
                return new ChunkReader(c, mode, signal);
            });
        });
    }

    private static ConnectionConfig config(ConnectionConfig c, EventLoop streamLoop) {
        EventLoopGroup group = c.eventLoopGroup() != null ? c.eventLoopGroup() : Transports.sharedGroup();
        for (int i = 0; i < 8 && streamLoop != null; i++) {
            EventLoop next = group.next();
            if (next != streamLoop) return c.toBuilder().eventLoopGroup(next).build();
        }
        return c;
    }

    PgConnection connection() {
        return connection;
    }

    /**
     * Reads one chunk.
     *
     * @param token    identifies this chunk's marks in the stream
     * @param table    the planned table
     * @param selected the selected columns as a relation, for decoding
     * @param after    the exclusive lower key, or null
     * @param upTo     the inclusive upper key, or null
     * @param limit    the chunk size
     * @return the chunk, once the high mark committed
     */
    CompletionStage<ChunkRead> read(String token, KeyedTable table, RelationInfo selected, List<String> after,
                                    List<String> upTo, int limit) {
        String low = mode == WatermarkMode.READ_ONLY ? ""
                : "BEGIN; SELECT set_config('synchronous_commit', 'off', true); " + mark(token, true) + "; COMMIT; ";
        String end = "; COMMIT; " + (mode == WatermarkMode.READ_ONLY
                ? "SELECT " + LSN + ", current_setting('wal_block_size')" : mark(token, false));
        ChunkCopyExchange copy = new ChunkCopyExchange(low + "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SELECT "
                + snapshotFunction + "::text, " + LSN + "; ", table.chunkSql(after, upTo, limit), end, selected,
                table.publishedColumnCount(), table.keyColumnIndexes(), table.matchColumnIndexes(), new ChunkRows(), table.qualifiedName());
        connection.submit(copy);
        CompletableFuture<ChunkRead> out = new CompletableFuture<>();
        copy.future().whenComplete((v, e) -> {
            if (e != null) {
                // An error skips the rest of the query string and may leave the read transaction
                // open and failed: it ends here before the chunk fails (a warning if none was open).
                Throwable cause = e instanceof java.util.concurrent.CompletionException c && c.getCause() != null ? c.getCause() : e;
                connection.simpleQuery("ROLLBACK").whenComplete((r, x) -> out.completeExceptionally(cause));
                return;
            }
            try {
                String[] snap = copy.prefixRow();
                if (snap == null || snap.length != 2) throw new IllegalStateException("no snapshot row before the chunk's COPY");
                XidSnapshot s = XidSnapshot.parse(snap[0]);
                long lowLsn = Lsn.parse(snap[1]);
                long highLsn = mode == WatermarkMode.READ_ONLY ? readOnlyMark(copy.suffixRow()) : 0;
                out.complete(new ChunkRead(v, s, lowLsn, highLsn));
            } catch (RuntimeException ex) {
                v.release();
                out.completeExceptionally(ex);
            }
        });
        return out;
    }

    /**
     * The position the stream must reach. The insert position of an idle primary may sit just past
     * a page header, where no record ends: the walsender stops at the page boundary, so the mark is
     * moved back to it (a record is at least 24 bytes after a header of 24 or 40, so none ends
     * between the boundary and 40 bytes after it).
     */
    private static long readOnlyMark(String[] row) {
        if (row == null || row.length != 2) throw new IllegalStateException("no position row after the chunk's COPY");
        long lsn = Lsn.parse(row[0]);
        long block = Long.parseLong(row[1]);
        long into = Long.remainderUnsigned(lsn, block);
        return into <= 40 ? lsn - into : lsn;
    }

    private String mark(String token, boolean open) {
        String content = token + (open ? ":low" : ":high");
        if (mode == WatermarkMode.MESSAGE) {
            return "SELECT pg_logical_emit_message(true, '" + WATERMARK_PREFIX + "', '" + content + "')";
        }
        return "INSERT INTO " + signalTable + " (id, type, data) VALUES ('" + content + "', '"
                + (open ? OPEN_TYPE : CLOSE_TYPE) + "', NULL)";
    }
}
