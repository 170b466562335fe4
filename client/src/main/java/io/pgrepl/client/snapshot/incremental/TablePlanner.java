package io.pgrepl.client.snapshot.incremental;

import io.pgrepl.client.PgConnection;
import io.pgrepl.client.Row;
import io.pgrepl.client.snapshot.SnapshotException;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Plans tables for incremental snapshots from the catalog: which columns the publications send,
 * which key to walk by, the filters, a row estimate; and splits a table into key ranges without
 * a full scan. Runs plain queries on an ordinary (non-replication) connection.
 */
public final class TablePlanner {
    /** Below this many estimated rows per range, {@link #ranges} makes fewer ranges than asked. */
    public static final long DEFAULT_MIN_ROWS_PER_RANGE = 10_000;

    private TablePlanner() {}

    /**
     * Plans a table by its primary key or replica identity index.
     *
     * @param ordinary            an ordinary connection to the database
     * @param publications        the publications the stream uses
     * @param qualifiedTable      {@code schema.table} or {@code table} (in {@code public}), read as
     *                            PostgreSQL reads a name ({@link io.pgrepl.client.replication.QualifiedName#parse})
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
     * @param qualifiedTable      {@code schema.table} or {@code table}, read as PostgreSQL reads a name
     * @param additionalCondition a WHERE condition to add, or null
     * @param surrogateKey        the columns to walk by instead of the table's key, or null/empty
     *                            for the table's key; refused unless a unique index covers them and
     *                            they are NOT NULL (see {@code docs/incremental-snapshots.md})
     * @return the planned table; fails with a {@link io.pgrepl.client.snapshot.SnapshotException}
     */
    public static CompletionStage<KeyedTable> plan(PgConnection ordinary, List<String> publications,
                                                   String qualifiedTable, String additionalCondition,
                                                   List<String> surrogateKey) {
        int major = ordinary.serverMajor();
        String tableSql;
        try {
            if (publications == null || publications.isEmpty()) throw new IllegalArgumentException("no publication given");
            tableSql = PlanCatalog.tableSql(qualifiedTable, publications, major);
            if (additionalCondition != null && !additionalCondition.isBlank()) SqlCondition.requireSingleExpression(additionalCondition);
        } catch (IllegalArgumentException e) {
            return CompletableFuture.failedFuture(new SnapshotException(SnapshotException.Kind.FAILED,
                    "cannot plan table " + qualifiedTable + ": " + e.getMessage(), qualifiedTable, e));
        }
        return ordinary.query(tableSql).thenCompose(r -> {
            PlanCatalog.Found f = PlanCatalog.found(r, qualifiedTable, publications);
            return ordinary.simpleQuery(PlanCatalog.detailsSql(f.oid(), f.relkind() == 'p', major)).thenCompose(d -> {
                List<PlanCatalog.Attribute> attributes = PlanCatalog.attributes(d.get(0));
                int[] key = PlanCatalog.keyAttnums(d.get(1), f.replident());
                long estimate = PlanCatalog.estimate(d.get(2), major, attributes);
                int[] identity = PlanCatalog.identityAttnums(d.get(1), f.replident());
                KeyedTable kt = PlanCatalog.build(f, attributes, key, identity, surrogateKey, major, additionalCondition, estimate);
                if (surrogateKey == null || surrogateKey.isEmpty()) return CompletableFuture.completedFuture(kt);
                return ordinary.simpleQuery(SurrogateKeys.checkSql(f.oid(), major)).thenApply(c -> {
                    SurrogateKeys.check(f.schema() + "." + f.name(), f.schema(), f.name(), attributes, surrogateKey, c.get(0), c.get(1));
                    return kt;
                });
            });
        });
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
        return ranges(ordinary, table, n, DEFAULT_MIN_ROWS_PER_RANGE);
    }

    /**
     * Splits a table into at most {@code n} key ranges of about {@code minRowsPerRange} rows or more.
     *
     * @param ordinary        an ordinary connection to the database
     * @param table           the planned table
     * @param n               the number of ranges wanted, at least 1
     * @param minRowsPerRange below this many estimated rows per range, fewer ranges are made
     * @return the ranges in key order: the first open at the start, the last open at the end
     */
    public static CompletionStage<List<KeyRange>> ranges(PgConnection ordinary, KeyedTable table, int n, long minRowsPerRange) {
        if (n < 1) return CompletableFuture.failedFuture(new IllegalArgumentException("at least one range, got " + n));
        long byRows = table.estimatedRows() / Math.max(1, minRowsPerRange);
        int want = (int) Math.max(1, Math.min(n, byRows));
        if (want == 1) return CompletableFuture.completedFuture(List.of(new KeyRange(null, null)));
        CompletionStage<List<List<String>>> histogram = ordinary.query(KeyRanges.histogramSql(table)).thenCompose(h -> {
            if (h.rows().isEmpty()) return CompletableFuture.completedFuture(List.<List<String>>of());
            Row row = h.rows().get(0);
            return ordinary.query(KeyRanges.sortedHistogramSql(table, row.get(0), row.get(1), row.get(2))).thenApply(KeyRanges::points);
        });
        return histogram
                // A histogram the key's type cannot read back (an array key's, say) is no reason to fail: sample instead.
                .exceptionally(e -> List.of())
                .thenCompose(points -> points.size() > want
                        ? CompletableFuture.completedFuture(points)
                        : ordinary.query(KeyRanges.sampleSql(table)).thenApply(KeyRanges::points))
                .thenApply(points -> KeyRanges.split(points, want));
    }
}
