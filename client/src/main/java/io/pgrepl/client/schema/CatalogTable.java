package io.pgrepl.client.schema;

import java.util.List;

/**
 * A table as the catalog described it when a captured DDL statement ended (see {@link DdlCommand#table()}).
 *
 * @param schema          the table's schema
 * @param name            the table's name
 * @param kind            {@code relkind}: {@code 'r'} table, {@code 'p'} partitioned table
 * @param replicaIdentity {@code relreplident}: {@code 'd'}, {@code 'n'}, {@code 'f'} or {@code 'i'}
 * @param columns         its live columns in {@code attnum} order (dropped ones left out)
 * @param primaryKey      the primary key's column names in key order; empty without one
 */
public record CatalogTable(String schema, String name, char kind, char replicaIdentity, List<CatalogColumn> columns,
                           List<String> primaryKey) {
    /** Copies the lists. */
    public CatalogTable {
        columns = List.copyOf(columns);
        primaryKey = List.copyOf(primaryKey);
    }

    /**
     * The column named {@code name}, or null.
     *
     * @param name the column's name
     * @return the column, or null
     */
    public CatalogColumn column(String name) {
        for (CatalogColumn c : columns) if (c.name().equals(name)) return c;
        return null;
    }
}
