package io.pgrepl.testkit;

/**
 * Runs SQL on a test server. The test kit has no client of its own; an implementation is found
 * with {@link java.util.ServiceLoader} (the client module's test helper provides one).
 */
public interface SqlExecutor {
    /** Executes {@code sql} (one or more statements, simple query protocol) as the superuser. */
    void execute(PgServer server, String database, String sql) throws Exception;
}
