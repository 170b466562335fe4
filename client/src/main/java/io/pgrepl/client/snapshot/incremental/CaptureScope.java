package io.pgrepl.client.snapshot.incremental;

/**
 * What the application captures, so that the engine refuses the rest before it looks anything up.
 * A table the scope leaves out is never planned nor read, whoever asks for it (a signal on any
 * channel, {@link IncrementalSnapshots#execute}, a saved state, a tree taken with its parent): its
 * snapshot ends {@link TableProgress.Status#EXCLUDED} at once, with the scope's reason, no row
 * count, no estimate and no key. The answer comes from the name alone, so it is the same whether
 * such a table exists or not.
 *
 * <p>A table whose key (the columns its chunks are walked by, a surrogate key included) has a
 * column the scope leaves out is refused the same way once its key is known: every chunk boundary
 * and the progress reports would carry that column's values.
 *
 * <p>Called on the stream's event loop: answer from the configuration, without I/O.
 */
public interface CaptureScope {
    /** Every table and column: nothing is refused (the default). */
    CaptureScope EVERYTHING = (schema, table) -> null;

    /**
     * Why a table is left out.
     *
     * @param schema the schema, as PostgreSQL stores it (unquoted)
     * @param table  the table, as PostgreSQL stores it (unquoted)
     * @return the reason, naming the setting that leaves it out, or null when it is captured
     */
    String excludes(String schema, String table);

    /**
     * Why a column is left out.
     *
     * @param schema the schema, unquoted
     * @param table  the table, unquoted
     * @param column the column, unquoted
     * @return the reason, naming the setting that leaves it out, or null when it is captured
     */
    default String excludesColumn(String schema, String table, String column) {
        return null;
    }
}
