package io.pgrepl.it.setup;

import static io.pgrepl.it.snapshot.SnapshotSupport.await;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.testkit.DocBlocks;
import io.pgrepl.testkit.PgServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A server set up from docs/operations.md's "Server setup" blocks and nothing else: its
 * postgresql.conf lines over a baseline with replication off (so a line the page forgets breaks the
 * test), its pg_hba.conf lines (plus one for the test's own superuser), the page's publication and
 * the role with the page's grants, on a database hardened the usual way (CONNECT and
 * {@code pg_logical_emit_message} revoked from PUBLIC), so that every grant the page gives counts.
 */
final class PageServer implements AutoCloseable {
    static final DocBlocks PAGE = DocBlocks.of("docs/operations.md");
    static final String DB = "app";
    static final String ROLE = "cdc";
    /** Replaces the page's placeholder; distinctive, so a leak into the output would be found. */
    static final String PASSWORD = "cdc-pw-Vr8qJ2xN";
    static final int ORDERS = 300;
    static final int CUSTOMERS = 200;

    final PgServer server;
    final int major;

    PageServer(int major) throws Exception {
        this.major = major;
        Map<String, String> conf = new LinkedHashMap<>();
        // PostgreSQL with replication off: wal_level minimal needs max_wal_senders 0.
        conf.put("wal_level", "minimal");
        conf.put("max_wal_senders", "0");
        conf.put("max_replication_slots", "0");
        conf.putAll(PAGE.settings("server-setup:postgresql.conf", major));
        server = PgServer.builder().version(major).settings(conf).start();
        try {
            writeHba(PAGE.lines("server-setup:pg_hba.conf"));
            server.sql("postgres", "CREATE DATABASE " + DB);
            server.sql(DB, "CREATE SCHEMA shop;"
                    + " CREATE TYPE shop.mood AS ENUM ('sad', 'ok', 'happy');"
                    + " CREATE DOMAIN shop.qty AS numeric(10,2) CHECK (VALUE >= 0);"
                    + " CREATE TABLE shop.orders (id int PRIMARY KEY, placed timestamp(3), amount numeric(12,2),"
                    + "  code varchar(12), flags bit(4), tags text[], mood shop.mood, qty shop.qty, note text);"
                    + " INSERT INTO shop.orders SELECT g, timestamp '2025-03-01 10:00:00.123' + g * interval '1 minute',"
                    + "  g * 1.25, 'o-' || g, (g % 16)::bit(4), ARRAY['a' || g, NULL], (ARRAY['sad','ok','happy'])[g % 3 + 1]::shop.mood,"
                    + "  CASE WHEN g % 7 = 0 THEN NULL ELSE g END,"
                    // Every 50th note is TOASTed: 40 kB that does not compress away.
                    + "  CASE WHEN g % 50 = 0 THEN (SELECT string_agg(md5(g::text || i::text), '') FROM generate_series(1, 1300) i)"
                    + "  ELSE 'note ' || g END FROM generate_series(1, " + ORDERS + ") g;"
                    + " CREATE TABLE shop.customers (id bigint PRIMARY KEY, \"Full Name\" varchar(40), since date);"
                    + " INSERT INTO shop.customers SELECT g, 'Zoë ' || g, date '2020-01-01' + g FROM generate_series(1, " + CUSTOMERS + ") g;"
                    + " REVOKE CONNECT ON DATABASE " + DB + " FROM PUBLIC;"
                    + (major >= 17 ? " REVOKE EXECUTE ON FUNCTION pg_catalog.pg_logical_emit_message(boolean, text, text, boolean) FROM PUBLIC;"
                       : major >= 14 ? " REVOKE EXECUTE ON FUNCTION pg_catalog.pg_logical_emit_message(boolean, text, text) FROM PUBLIC;" : ""));
            server.sql(DB, PAGE.block("server-setup:publication"));
            for (String block : roleBlocks()) server.sql(DB, roleSql(block));
        } catch (Exception | Error e) {
            server.close();
            throw e;
        }
    }

    /** The page's role blocks that apply to this major, in the page's order. */
    List<String> roleBlocks() {
        if (major >= 17) return List.of("role-streaming", "role-snapshot", "role-signal-table", "role-message-17", "role-monitoring");
        if (major >= 14) return List.of("role-streaming", "role-snapshot", "role-signal-table", "role-message-14", "role-monitoring");
        return List.of("role-streaming", "role-snapshot", "role-signal-table", "role-monitoring");
    }

    /** A role block's SQL, the placeholder password replaced. */
    static String roleSql(String block) {
        return PAGE.block("server-setup:" + block).replace("'change-me'", "'" + PASSWORD + "'");
    }

    /** pg_hba.conf: the test's superuser line, then {@code lines} with their address made the loopback. */
    void writeHba(List<String> lines) throws Exception {
        StringBuilder hba = new StringBuilder("host all " + server.superuser().name() + " 127.0.0.1/32 scram-sha-256\n");
        for (String line : lines) {
            String[] f = line.trim().split("\\s+");
            if (f.length != 5 || !f[0].equals("host")) throw new IllegalStateException("not a host line with 5 fields: " + line);
            hba.append(f[0]).append(' ').append(f[1]).append(' ').append(f[2]).append(" 127.0.0.1/32 ").append(f[4]).append('\n');
        }
        Path file = server.dataDir().resolve("pg_hba.conf");
        try {
            // Rewritten in place: the file keeps its owner and mode (the server runs as another user).
            Files.writeString(file, hba, StandardCharsets.UTF_8, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new IllegalStateException("cannot rewrite " + file, e);
        }
        server.reload(Map.of());
    }

    /** The role's URL to the page's database. */
    String url() {
        return "postgresql://" + ROLE + ":" + PASSWORD + "@" + server.host() + ":" + server.port() + "/" + DB + "?sslmode=disable";
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
        server.sql(DB, sql);
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
        server.close();
    }
}
