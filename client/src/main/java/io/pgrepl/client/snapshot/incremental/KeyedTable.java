package io.pgrepl.client.snapshot.incremental;

import io.pgrepl.client.replication.Identifiers;
import java.util.ArrayList;
import java.util.List;

/**
 * A table planned for an incremental snapshot: what to select (the published columns in attnum
 * order, as pgoutput sends them), the key to walk it by (the replica identity index, else the
 * primary key, else a surrogate key the user chose; composite keys allowed), the publication's row
 * filter (15+) and the user's additional condition. Immutable.
 *
 * <p>The selected columns are the published ones, then any key column the publication's column
 * list leaves out (selected only to walk the chunks; {@link #publishedColumnCount()} tells them
 * apart). Key values travel as their text form and come back as {@code 'text'::type} literals.
 */
public final class KeyedTable {
    /**
     * One selected column, described as pgoutput's Relation message describes it, so that a row
     * read by a chunk decodes to the same values, and the same schemas downstream, as the same
     * row streamed.
     *
     * @param name            the column name, as in the catalog
     * @param type            its type as {@code format_type(atttypid, atttypmod)} writes it, used in casts
     * @param typeOid         its type's oid ({@code atttypid})
     * @param typmod          its type modifier ({@code atttypmod}; -1 for none)
     * @param replicaIdentity whether pgoutput flags it as part of the table's replica identity
     *                        (the primary key under REPLICA IDENTITY DEFAULT, the index's columns
     *                        under USING INDEX, every column under FULL, none under NOTHING):
     *                        what a consumer keys the stream's changes by, whatever key the
     *                        snapshot walks the table by
     */
    public record Column(String name, String type, int typeOid, int typmod, boolean replicaIdentity) {
        /**
         * A column with no type modifier, not part of the replica identity.
         *
         * @param name    the column name
         * @param type    its type as {@code format_type} writes it
         * @param typeOid its type's oid
         */
        public Column(String name, String type, int typeOid) {
            this(name, type, typeOid, -1, false);
        }
    }

    private final String schema;
    private final String table;
    private final char replicaIdentity;
    private final boolean partitionedRoot;
    private final List<Column> columns;
    private final int publishedColumnCount;
    private final int[] keyIndexes;
    private final int[] matchIndexes;
    private final String rowFilter;
    private final String additionalCondition;
    private final long estimatedRows;

    /**
     * A planned table; {@link TablePlanner#plan} builds these from the catalog.
     *
     * @param schema               the schema name
     * @param table                the table name
     * @param partitionedRoot      whether it is a partitioned table read through its partitions
     *                             (else read with {@code ONLY})
     * @param columns              the selected columns: the published ones in attnum order, then
     *                             unpublished key columns
     * @param publishedColumnCount how many leading columns are published
     * @param keyColumnIndexes     the key columns' positions within {@code columns}, in key order
     * @param rowFilter            the publication row filter, or null
     * @param additionalCondition  the user's additional condition, or null
     * @param estimatedRows        the row estimate
     */
    public KeyedTable(String schema, String table, boolean partitionedRoot, List<Column> columns, int publishedColumnCount,
                      int[] keyColumnIndexes, String rowFilter, String additionalCondition, long estimatedRows) {
        this(schema, table, 'd', partitionedRoot, columns, publishedColumnCount, keyColumnIndexes, rowFilter,
                additionalCondition, estimatedRows);
    }

    /**
     * A planned table with its replica identity setting.
     *
     * @param schema               the schema name
     * @param table                the table name
     * @param replicaIdentity      {@code pg_class.relreplident}: {@code d}, {@code n}, {@code f} or {@code i}
     * @param partitionedRoot      whether it is a partitioned table read through its partitions
     * @param columns              the selected columns: the published ones in attnum order, then
     *                             unpublished key columns
     * @param publishedColumnCount how many leading columns are published
     * @param keyColumnIndexes     the key columns' positions within {@code columns}, in key order
     * @param rowFilter            the publication row filter, or null
     * @param additionalCondition  the user's additional condition, or null
     * @param estimatedRows        the row estimate
     */
    public KeyedTable(String schema, String table, char replicaIdentity, boolean partitionedRoot, List<Column> columns,
                      int publishedColumnCount, int[] keyColumnIndexes, String rowFilter, String additionalCondition,
                      long estimatedRows) {
        this(schema, table, replicaIdentity, partitionedRoot, columns, publishedColumnCount, keyColumnIndexes, keyColumnIndexes,
                rowFilter, additionalCondition, estimatedRows);
    }

    /**
     * A planned table walked by one key and matched to the stream's changes by another: a
     * surrogate key walks the chunks, while the stream's deletes and key-changing updates carry
     * only the replica identity, so chunk rows are matched to changes by that.
     *
     * @param schema               the schema name
     * @param table                the table name
     * @param replicaIdentity      {@code pg_class.relreplident}: {@code d}, {@code n}, {@code f} or {@code i}
     * @param partitionedRoot      whether it is a partitioned table read through its partitions
     * @param columns              the selected columns: the published ones in attnum order, then
     *                             unpublished key columns
     * @param publishedColumnCount how many leading columns are published
     * @param keyColumnIndexes     the walked key columns' positions within {@code columns}, in key order
     * @param matchColumnIndexes   the positions of the columns that identify a row in the stream's
     *                             changes (see {@link #matchColumnIndexes()})
     * @param rowFilter            the publication row filter, or null
     * @param additionalCondition  the user's additional condition, or null
     * @param estimatedRows        the row estimate
     */
    public KeyedTable(String schema, String table, char replicaIdentity, boolean partitionedRoot, List<Column> columns,
                      int publishedColumnCount, int[] keyColumnIndexes, int[] matchColumnIndexes, String rowFilter,
                      String additionalCondition, long estimatedRows) {
        if (keyColumnIndexes.length == 0) throw new IllegalArgumentException("a keyed table needs a key");
        if (matchColumnIndexes.length == 0) throw new IllegalArgumentException("a keyed table needs columns to match changes by");
        for (int k : keyColumnIndexes) {
            if (k < 0 || k >= columns.size()) throw new IllegalArgumentException("key column index " + k + " out of range");
        }
        for (int k : matchColumnIndexes) {
            if (k < 0 || k >= columns.size()) throw new IllegalArgumentException("match column index " + k + " out of range");
        }
        if (publishedColumnCount < 0 || publishedColumnCount > columns.size()) {
            throw new IllegalArgumentException("published column count " + publishedColumnCount + " out of range");
        }
        this.schema = schema;
        this.table = table;
        this.replicaIdentity = replicaIdentity;
        this.partitionedRoot = partitionedRoot;
        this.columns = List.copyOf(columns);
        this.publishedColumnCount = publishedColumnCount;
        this.keyIndexes = keyColumnIndexes.clone();
        this.matchIndexes = matchColumnIndexes.clone();
        this.rowFilter = rowFilter;
        this.additionalCondition = additionalCondition == null || additionalCondition.isBlank() ? null
                : SqlCondition.requireSingleExpression(additionalCondition);
        this.estimatedRows = estimatedRows;
    }

    /** {@return the schema name} */
    public String schema() {
        return schema;
    }

    /** {@return the table name} */
    public String table() {
        return table;
    }

    /** {@return {@code pg_class.relreplident}: {@code d}efault, {@code n}othing, {@code f}ull or {@code i}ndex} */
    public char replicaIdentity() {
        return replicaIdentity;
    }

    /** {@return {@code schema.table}, unquoted} */
    public String qualifiedName() {
        return schema + "." + table;
    }

    /** {@return whether it is a partitioned table, read through its partitions} */
    public boolean partitionedRoot() {
        return partitionedRoot;
    }

    /** {@return the selected columns: published ones first, then unpublished key columns} */
    public List<Column> columns() {
        return columns;
    }

    /** {@return how many leading selected columns are published (the rest are key columns only)} */
    public int publishedColumnCount() {
        return publishedColumnCount;
    }

    /** {@return the key columns, in key order} */
    public List<Column> keyColumns() {
        return java.util.Arrays.stream(keyIndexes).mapToObj(columns::get).toList();
    }

    /** {@return the positions of the key columns within the selected columns, in key order} */
    public int[] keyColumnIndexes() {
        return keyIndexes.clone();
    }

    /**
     * The columns a streamed change is matched to chunk rows by, as positions within the selected
     * columns: the walked key, except for a surrogate key on a table whose replica identity is its
     * primary key or an index, where they are that identity's columns. A delete, or an update that
     * changes them, carries the old values of those columns only, whatever else changed: matched by
     * the surrogate column, a delete would match nothing known (and be taken for a change of every
     * row), and an update moving the surrogate value would leave the row read under its old value
     * standing after the update.
     *
     * @return the positions, in the identity's (or the key's) order
     */
    public int[] matchColumnIndexes() {
        return matchIndexes.clone();
    }

    /** {@return the columns of {@link #matchColumnIndexes()}} */
    public List<Column> matchColumns() {
        return java.util.Arrays.stream(matchIndexes).mapToObj(columns::get).toList();
    }

    /** {@return the publication row filter (15+), or null} */
    public String rowFilter() {
        return rowFilter;
    }

    /** {@return the user's additional condition, or null} */
    public String additionalCondition() {
        return additionalCondition;
    }

    /** {@return the row estimate (reltuples, else from the relation's size)} */
    public long estimatedRows() {
        return estimatedRows;
    }

    /**
     * The SELECT of one chunk: the selected columns, the row filter, the additional condition and
     * the key bounds, ordered by key.
     *
     * @param afterKey the exclusive lower bound as key texts (a key prefix allowed), or null for the start
     * @param upToKey  the inclusive upper bound as key texts (a key prefix allowed), or null for the end
     * @param limit    the chunk size, at least 1
     * @return the statement
     * @throws IllegalArgumentException for a bound longer than the key, or a limit below 1
     */
    public String chunkSql(List<String> afterKey, List<String> upToKey, int limit) {
        if (limit < 1) throw new IllegalArgumentException("chunk size must be at least 1, got " + limit);
        StringBuilder sb = new StringBuilder(128).append("SELECT ");
        for (int i = 0; i < columns.size(); i++) {
            if (i > 0) sb.append(", ");
            sb.append(Identifiers.quoteIdentifier(columns.get(i).name()));
        }
        sb.append(" FROM ").append(partitionedRoot ? "" : "ONLY ")
                .append(Identifiers.quoteIdentifier(schema)).append('.').append(Identifiers.quoteIdentifier(table));
        List<String> where = new ArrayList<>(4);
        if (rowFilter != null) where.add("(" + rowFilter + ")");
        if (additionalCondition != null) where.add("(" + additionalCondition + ")");
        if (afterKey != null) where.add(keyComparison(afterKey, ">"));
        if (upToKey != null) where.add(keyComparison(upToKey, "<="));
        if (!where.isEmpty()) sb.append(" WHERE ").append(String.join(" AND ", where));
        sb.append(" ORDER BY ");
        for (int i = 0; i < keyIndexes.length; i++) {
            if (i > 0) sb.append(", ");
            sb.append(Identifiers.quoteIdentifier(columns.get(keyIndexes[i]).name()));
        }
        return sb.append(" LIMIT ").append(limit).toString();
    }

    /**
     * {@code ("k1", "k2") > ('a'::t1, 'b'::t2)}: a row comparison, which PostgreSQL evaluates
     * lexicographically and can answer from the key's btree index. A bound shorter than the key
     * compares on that prefix only.
     */
    private String keyComparison(List<String> bound, String op) {
        if (bound.isEmpty() || bound.size() > keyIndexes.length) {
            throw new IllegalArgumentException("a key bound of " + qualifiedName() + " needs 1 to " + keyIndexes.length
                    + " values, got " + bound.size());
        }
        StringBuilder cols = new StringBuilder();
        StringBuilder vals = new StringBuilder();
        for (int i = 0; i < bound.size(); i++) {
            String v = bound.get(i);
            if (v == null) throw new IllegalArgumentException("a key bound of " + qualifiedName() + " has a null value");
            Column c = columns.get(keyIndexes[i]);
            if (i > 0) {
                cols.append(", ");
                vals.append(", ");
            }
            cols.append(Identifiers.quoteIdentifier(c.name()));
            vals.append(Identifiers.quoteLiteral(v)).append("::").append(c.type());
        }
        return bound.size() == 1 ? cols + " " + op + " " + vals : "(" + cols + ") " + op + " (" + vals + ")";
    }
}
