package io.pgrepl.it.setup;

import static io.pgrepl.it.snapshot.SnapshotSupport.await;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.testkit.DocumentedServer;
import io.pgrepl.testkit.PgServer;
import java.util.List;

/** {@link DocumentedServer} with client connections: as the page's role, and as the superuser. */
final class PageServer implements AutoCloseable {
    static final String DB = DocumentedServer.DB;
    static final int ORDERS = DocumentedServer.ORDERS;
    static final int CUSTOMERS = DocumentedServer.CUSTOMERS;

    final DocumentedServer documented;
    final PgServer server;
    final int major;

    PageServer(int major) throws Exception {
        this.documented = DocumentedServer.start(major);
        this.server = documented.server();
        this.major = major;
    }

    static String roleSql(String block) {
        return DocumentedServer.roleSql(block);
    }

    void writeHba(List<String> lines) {
        documented.writeHba(lines);
    }

    String url() {
        return documented.url();
    }

    ConnectionConfig config(ReplicationMode mode) {
        return ConnectionConfig.parse(url()).toBuilder().replication(mode).build();
    }

    PgConnection connect(ReplicationMode mode) throws Exception {
        return await(PgConnection.connect(config(mode)));
    }

    /** A superuser session on the page's database. */
    PgConnection admin() throws Exception {
        ConnectionConfig c = ConnectionConfig.parse(server.url(server.superuser(), DB) + "?sslmode=disable").toBuilder()
                .replication(ReplicationMode.NONE).build();
        return await(PgConnection.connect(c));
    }

    /** The server's error for {@code sql} on {@code c}; fails if it succeeds. */
    static String error(PgConnection c, String sql) throws Exception {
        try {
            await(c.query(sql));
        } catch (Exception e) {
            return String.valueOf(e.getMessage());
        }
        throw new AssertionError("succeeded: " + sql);
    }

    void sql(String sql) throws Exception {
        documented.sql(sql);
    }

    /** The first column of the first row, as the superuser. */
    String scalar(String sql) throws Exception {
        try (PgConnection c = admin()) {
            var rows = await(c.query(sql)).rows();
            return rows.isEmpty() ? null : rows.get(0).get(0);
        }
    }

    @Override
    public void close() {
        documented.close();
    }
}
