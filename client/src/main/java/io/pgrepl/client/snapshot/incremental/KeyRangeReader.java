package io.pgrepl.client.snapshot.incremental;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.codec.pgoutput.ColumnInfo;
import io.pgrepl.codec.pgoutput.RelationInfo;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Reads a planned table's key range piece by piece on one ordinary connection, for readers that
 * merge snapshot rows with a stream on their own (a Flink source's snapshot splits): each piece is
 * one round trip, one {@code REPEATABLE READ READ ONLY} transaction that takes its transaction
 * snapshot first and then copies at most {@code limit} rows in key order, the chunk SQL of
 * {@link KeyedTable#chunkSql}. Nothing is written (no watermarks): which stream changes a piece
 * already holds is told by its {@link KeyRangeRead#snapshot()}. One read at a time per reader.
 */
public final class KeyRangeReader implements AutoCloseable {
    private final ChunkReader reader;

    private KeyRangeReader(ChunkReader reader) {
        this.reader = reader;
    }

    /**
     * Connects.
     *
     * @param ordinary the database (the replication parameter is replaced by {@code none})
     * @param timeZone the session's TimeZone, so {@code timestamptz} texts match the stream's; null for the server's
     * @return the reader, once the session is set up
     */
    public static CompletionStage<KeyRangeReader> open(ConnectionConfig ordinary, String timeZone) {
        return ChunkReader.open(IncrementalOptions.of(ordinary), WatermarkMode.READ_ONLY, timeZone, null).thenApply(KeyRangeReader::new);
    }

    /** {@return the reader's connection (for catalog queries between reads, e.g. planning)} */
    public PgConnection connection() {
        return reader.connection();
    }

    /**
     * Reads the rows of {@code table} whose key is after {@code after} and at most {@code upTo}, at
     * most {@code limit} of them, in key order. A piece that returns {@code limit} rows may have
     * more after it: read on after its {@link KeyRangeRead#lastKey()}.
     *
     * @param table the planned table; its key columns must be published (each row's key is read from it)
     * @param after the exclusive lower bound as key texts (a prefix allowed), or null for the start
     * @param upTo  the inclusive upper bound as key texts (a prefix allowed), or null for the end
     * @param limit the most rows to read, at least 1
     * @return the piece; fails with the server's error (the read transaction is rolled back)
     */
    public CompletionStage<KeyRangeRead> read(KeyedTable table, List<String> after, List<String> upTo, int limit) {
        int[] keys = table.keyColumnIndexes();
        for (int k : keys) {
            if (k >= table.publishedColumnCount()) {
                return CompletableFuture.failedFuture(new IllegalArgumentException("table " + table.qualifiedName()
                        + ": key column \"" + table.columns().get(k).name() + "\" is not published (the publication's column"
                        + " list leaves it out), so a row's key cannot be read from the row"));
            }
        }
        // As the stream's Relation message describes the table (typmods, replica identity flags):
        // a row read here decodes as the same row streamed.
        List<ColumnInfo> all = new ArrayList<>();
        for (KeyedTable.Column c : table.columns()) {
            all.add(new ColumnInfo(c.replicaIdentity() ? ColumnInfo.FLAG_KEY : 0, c.name(), c.typeOid(), c.typmod()));
        }
        RelationInfo selected = new RelationInfo(0, table.schema(), table.table(), table.replicaIdentity(), all);
        RelationInfo published = new RelationInfo(0, table.schema(), table.table(), table.replicaIdentity(),
                all.subList(0, table.publishedColumnCount()));
        return reader.read("range", table, selected, after, upTo, limit).thenApply(r -> new KeyRangeRead(published, r));
    }

    /** Closes the connection. */
    @Override
    public void close() {
        reader.connection().close();
    }
}
