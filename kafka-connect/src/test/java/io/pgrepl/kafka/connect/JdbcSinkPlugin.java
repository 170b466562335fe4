package io.pgrepl.kafka.connect;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.testkit.PgServer;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Debezium's JDBC sink connector as released (its 3.5.0.Final plugin archive, unpacked by the build in
 * generate-test-resources), isolated on the Connect worker's {@code plugin.path}, writing to a
 * PostgreSQL database of the test kit.
 */
final class JdbcSinkPlugin {
    static final String CONNECTOR = "io.debezium.connector.jdbc.JdbcSinkConnector";

    private JdbcSinkPlugin() {}

    /** {@return the worker properties that put the plugin on {@code plugin.path}} */
    static Map<String, String> workerProps() {
        Path plugins = Path.of("target", "debezium-plugins").toAbsolutePath();
        assertTrue(plugins.resolve("debezium-connector-jdbc").toFile().isDirectory(), "the JDBC sink's plugin directory ("
                + plugins + ") is unpacked by the build (generate-test-resources)");
        return Map.of("plugin.path", plugins.toString());
    }

    /**
     * The sink as both tests run it: upserts keyed by the record key, deletes applied, columns added
     * as records bring them ({@code schema.evolution=basic}), identifiers quoted (mixed case kept).
     *
     * @param server   the database server
     * @param database the database the tables are written to
     * @return the configuration, without {@code topics} or {@code topics.regex}
     */
    static Map<String, String> config(PgServer server, String database) {
        Map<String, String> c = new HashMap<>();
        c.put("connector.class", CONNECTOR);
        c.put("tasks.max", "1");
        c.put("connection.url", "jdbc:postgresql://127.0.0.1:" + server.port() + "/" + database);
        c.put("connection.username", server.superuser().name());
        c.put("connection.password", server.superuser().password());
        c.put("insert.mode", "upsert");
        c.put("delete.enabled", "true");
        c.put("primary.key.mode", "record_key");
        c.put("schema.evolution", "basic");
        c.put("quote.identifiers", "true");
        return c;
    }
}
