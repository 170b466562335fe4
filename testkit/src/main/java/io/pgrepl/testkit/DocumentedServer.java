package io.pgrepl.testkit;

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
 * tests), its pg_hba.conf lines (plus one for the test's own superuser), the page's publication and
 * the role with the page's grants, on a database hardened the usual way (CONNECT and
 * {@code pg_logical_emit_message} revoked from PUBLIC), so that every grant the page gives counts.
 * The page's names: database {@code app}, schema {@code shop}, tables {@code shop.orders} (typmod'd
 * types, an array, an enum, a domain, NULLs, TOASTed notes) and {@code shop.customers}, role {@code cdc}.
 */
public final class DocumentedServer implements AutoCloseable {
    public static final DocBlocks PAGE = DocBlocks.of("docs/operations.md");
    public static final String DB = "app";
    public static final String ROLE = "cdc";
    /** Replaces the page's placeholder; distinctive, so a leak into the output would be found. */
    public static final String PASSWORD = "cdc-pw-Vr8qJ2xN";
    public static final int ORDERS = 300;
    public static final int CUSTOMERS = 200;

    private final PgServer server;
    private final int major;

    private DocumentedServer(PgServer server, int major) {
        this.server = server;
        this.major = major;
    }

    /** A new server of {@code major} set up as the page says. */
    public static DocumentedServer start(int major) throws Exception {
        Map<String, String> conf = new LinkedHashMap<>();
        // PostgreSQL with replication off: wal_level minimal needs max_wal_senders 0.
        conf.put("wal_level", "minimal");
        conf.put("max_wal_senders", "0");
        conf.put("max_replication_slots", "0");
        conf.putAll(PAGE.settings(block("postgresql.conf"), major));
        DocumentedServer s = new DocumentedServer(PgServer.builder().version(major).settings(conf).start(), major);
        try {
            s.writeHba(s.pageHba());
            s.server.sql("postgres", "CREATE DATABASE " + DB);
            s.sql("CREATE SCHEMA shop;"
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
            s.sql(PAGE.block(block("publication")));
            for (String b : s.roleBlocks()) s.sql(roleSql(b));
        } catch (Exception | Error e) {
            s.close();
            throw e;
        }
        return s;
    }

    /** A block's name on the page: {@code server-setup:NAME}. */
    public static String block(String name) {
        return "server-setup:" + name;
    }

    public PgServer server() {
        return server;
    }

    public int major() {
        return major;
    }

    /** The page's role blocks that apply to this major, in the page's order. */
    public List<String> roleBlocks() {
        if (major >= 17) return List.of("role-streaming", "role-snapshot", "role-signal-table", "role-message-17", "role-monitoring");
        if (major >= 14) return List.of("role-streaming", "role-snapshot", "role-signal-table", "role-message-14", "role-monitoring");
        return List.of("role-streaming", "role-snapshot", "role-signal-table", "role-monitoring");
    }

    /** A role block's SQL, the placeholder password replaced. */
    public static String roleSql(String name) {
        return PAGE.block(block(name)).replace("'change-me'", "'" + PASSWORD + "'");
    }

    /** The page's pg_hba.conf lines. */
    public List<String> pageHba() {
        return PAGE.lines(block("pg_hba.conf"));
    }

    /** pg_hba.conf: the test's superuser line, then {@code lines} with their address made the loopback; reloaded. */
    public void writeHba(List<String> lines) {
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
    public String url() {
        return "postgresql://" + ROLE + ":" + PASSWORD + "@" + server.host() + ":" + server.port() + "/" + DB + "?sslmode=disable";
    }

    /** Runs SQL on the page's database as the superuser. */
    public void sql(String sql) throws Exception {
        server.sql(DB, sql);
    }

    @Override
    public void close() {
        server.close();
    }
}
