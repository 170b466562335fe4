package io.pgrepl.client.snapshot.incremental;

import io.pgrepl.client.PgConnection;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Plans tables for incremental snapshots from the catalog: which columns the publications send,
 * which key to walk by, the filters, a row estimate; and splits a table into key ranges without
 * a full scan. Runs plain queries on an ordinary (non-replication) connection.
 */
public final class TablePlanner {
    private TablePlanner() {}

    /**
     * Plans a table by its primary key or replica identity index.
     *
     * @param ordinary            an ordinary connection to the database
     * @param publications        the publications the stream uses
     * @param qualifiedTable      {@code schema.table} (parts may be double-quoted)
     * @param additionalCondition a WHERE condition to add, or null
     * @return the planned table; fails with a {@link io.pgrepl.client.snapshot.SnapshotException}
     *         for a table missing, not in the publications or without a usable key
     */
    public static CompletionStage<KeyedTable> plan(PgConnection ordinary, List<String> publications,
                                                   String qualifiedTable, String additionalCondition) {
        return plan(ordinary, publications, qualifiedTable, additionalCondition, null);
    }

    /**
     * Plans a table, by a surrogate key when given.
     *
     * @param ordinary            an ordinary connection to the database
     * @param publications        the publications the stream uses
     * @param qualifiedTable      {@code schema.table} (parts may be double-quoted)
     * @param additionalCondition a WHERE condition to add, or null
     * @param surrogateKey        the columns to walk by instead of the table's key (unique and not
     *                            null, the user's promise), or null/empty for the table's key
     * @return the planned table; fails with a {@link io.pgrepl.client.snapshot.SnapshotException}
     */
    public static CompletionStage<KeyedTable> plan(PgConnection ordinary, List<String> publications,
                                                   String qualifiedTable, String additionalCondition,
                                                   List<String> surrogateKey) {
        throw new UnsupportedOperationException("not yet");
    }

    /**
     * Splits a table into at most {@code n} contiguous key ranges that cover it without overlap,
     * from the leading key column's histogram when the table was analyzed, else from a
     * {@code TABLESAMPLE SYSTEM} sample; fewer when the table is small.
     *
     * @param ordinary an ordinary connection to the database
     * @param table    the planned table
     * @param n        the number of ranges wanted, at least 1
     * @return the ranges in key order: the first open at the start, the last open at the end
     */
    public static CompletionStage<List<KeyRange>> ranges(PgConnection ordinary, KeyedTable table, int n) {
        throw new UnsupportedOperationException("not yet");
    }
}
