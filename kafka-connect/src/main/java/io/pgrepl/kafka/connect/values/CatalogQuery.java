package io.pgrepl.kafka.connect.values;

import io.pgrepl.client.QueryResult;

/**
 * Runs one catalog query for the type readers here ({@link CatalogTypes}, {@link TypeNames}); the
 * task supplies it with its own connection settings, timeouts and error wording, so this package
 * reads the catalog without knowing how the task connects.
 */
@FunctionalInterface
public interface CatalogQuery {
    /**
     * @param sql  the query
     * @param what what is being read, for an error message ("reading type 16385")
     */
    QueryResult run(String sql, String what);
}
