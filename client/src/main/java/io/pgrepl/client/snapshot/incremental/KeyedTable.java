package io.pgrepl.client.snapshot.incremental;

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
     * One selected column.
     *
     * @param name    the column name, as in the catalog
     * @param type    its type as {@code format_type(atttypid, atttypmod)} writes it, used in casts
     * @param typeOid its type's oid
     */
    public record Column(String name, String type, int typeOid) {}

    private final String schema;
    private final String table;
    private final boolean partitionedRoot;
    private final List<Column> columns;
    private final int publishedColumnCount;
    private final int[] keyIndexes;
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
        this.schema = schema;
        this.table = table;
        this.partitionedRoot = partitionedRoot;
        this.columns = List.copyOf(columns);
        this.publishedColumnCount = publishedColumnCount;
        this.keyIndexes = keyColumnIndexes.clone();
        this.rowFilter = rowFilter;
        this.additionalCondition = additionalCondition;
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
        throw new UnsupportedOperationException("not yet");
    }
}
