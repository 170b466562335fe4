package io.pgrepl.testkit.client;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.SqlExecutor;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * {@link SqlExecutor} backed by this project's own client: one short-lived connection per call,
 * as the superuser, TLS when the server offers it (hostssl-only servers need it). Blocks the
 * calling (test) thread, never an event loop.
 */
public final class ClientSqlExecutor implements SqlExecutor {
    private static final long TIMEOUT_SECONDS = 120;

    @Override
    public void execute(PgServer server, String database, String sql) throws Exception {
        ConnectionConfig cfg = ConnectionConfig.builder()
                .host(server.host())
                .port(server.port())
                .user(server.superuser().name())
                .password(server.superuser().password())
                .database(database)
                .sslMode(SslMode.PREFER)
                .applicationName("pgrepl-testkit")
                .connectTimeout(Duration.ofSeconds(30))
                .build();
        PgConnection c = PgConnection.connect(cfg).toCompletableFuture().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        try {
            c.simpleQuery(sql).toCompletableFuture().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } finally {
            c.closeAsync().toCompletableFuture().get(TIMEOUT_SECONDS, TimeUnit.SECONDS);
        }
    }
}
