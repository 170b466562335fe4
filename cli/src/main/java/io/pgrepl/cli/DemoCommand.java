package io.pgrepl.cli;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.replication.SnapshotMode;
import io.pgrepl.codec.Lsn;
import io.pgrepl.testkit.PgServer;

import java.io.PrintStream;
import java.time.Duration;

import static io.pgrepl.cli.StreamCommand.await;

/**
 * {@code pgrepl demo [--url URL] [--pg-version N]}: starts an embedded PostgreSQL (test kit, SCRAM)
 * unless given a URL, creates a table of a few column types, a publication and a temporary slot,
 * runs a small varied workload (inserts, an update, a delete, a primary-key change, a logical
 * message, a transaction of several changes) and streams it exactly as {@code pgrepl stream} does by
 * default (typed JSON lines) to stdout; then stops the stream, drops the slot, the publication and the
 * table, stops the server, and says on stderr which command streams your own server. The output
 * fits one screen: it is there to be read.
 */
final class DemoCommand implements Main.Command {
    static final String TABLE = "pgrepl_demo_items";
    static final String PUBLICATION = "pgrepl_demo_pub";
    /** The command the demo ends with: the same stream, on the user's own server. */
    static final String YOUR_SERVER = "pgrepl stream postgresql://USER@HOST:5432/DBNAME --slot my_slot --publication my_pub"
            + " --create-slot --if-not-exists";
    private static final java.util.List<Opts.Spec> SPECS = java.util.List.of(
            Opts.Spec.value("url", "URL", "use this server (a superuser) instead of starting an embedded one", null),
            Opts.Spec.value("pg-version", "N", "major version of the embedded server (10, 12-18)", "18"));

    @Override
    public String summary() {
        return "start an embedded server, make changes and stream them as JSON lines";
    }

    @Override
    public Opts.Help help() {
        return new Opts.Help("pgrepl demo [--url URL] [--pg-version N]",
                "Starts an embedded PostgreSQL (unless --url), creates a table, a publication and a temporary slot,\n"
                        + "runs a small workload (inserts of several column types, an update, a delete, a key change, a\n"
                        + "logical message, a transaction of several changes) and prints it as 'pgrepl stream' does by\n"
                        + "default (typed JSON, one line per change); then cleans up and shows the command for your server.",
                SPECS, "pgrepl demo --pg-version 17");
    }

    @Override
    public int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        Opts.Parsed p = Opts.parse(SPECS, args);
        if (!p.positional.isEmpty()) throw new UsageException("unknown argument " + CliErrors.shown(p.positional.get(0)));
        String url = p.get("url");
        int version;
        try {
            version = Integer.parseInt(p.get("pg-version") == null ? "18" : p.get("pg-version"));
        } catch (NumberFormatException e) {
            throw new UsageException("--pg-version needs a major version number");
        }
        int rc;
        if (url != null) {
            rc = demo(url, out, err);
        } else {
            err.println("pgrepl demo: starting PostgreSQL " + version + " (embedded, SCRAM) ...");
            try (PgServer server = PgServer.builder().version(version).setting("max_replication_slots", "10").start()) {
                err.println("pgrepl demo: PostgreSQL " + server.version() + " on " + server.host() + ":" + server.port());
                rc = demo(server.url(server.superuser(), "postgres"), out, err);
            }
        }
        err.println();
        err.println("To stream your own server (wal_level = logical; a role with REPLICATION; a publication):");
        err.println("  psql -c 'CREATE PUBLICATION my_pub FOR TABLE my_table' postgresql://USER@HOST:5432/DBNAME");
        err.println("  " + YOUR_SERVER);
        return rc;
    }

    private static int demo(String url, PrintStream out, PrintStream err) throws Exception {
        ConnectionConfig base = ConnectionConfig.parse(url);
        String slot = "pgrepl_demo_" + ProcessHandle.current().pid();
        try (PgConnection sql = await(PgConnection.connect(base.toBuilder().replication(ReplicationMode.NONE).build()));
             PgConnection repl = await(PgConnection.connect(base.toBuilder().replication(ReplicationMode.DATABASE).build()))) {
            int major = sql.serverMajor();
            if (major < 10) throw new IllegalStateException("logical replication needs PostgreSQL 10 or later");
            await(sql.simpleQuery("DROP TABLE IF EXISTS " + TABLE + "; DROP PUBLICATION IF EXISTS " + PUBLICATION));
            await(sql.simpleQuery("CREATE TABLE " + TABLE + " (id int PRIMARY KEY, name text, price numeric(10,2),"
                    + " tags text[], added timestamptz, attrs jsonb, in_stock boolean)"));
            await(sql.simpleQuery("CREATE PUBLICATION " + PUBLICATION + " FOR TABLE " + TABLE));
            try {
                await(repl.createReplicationSlot(CreateSlotOptions.logical(slot, "pgoutput").withTemporary(true)
                        .withSnapshot(SnapshotMode.NOTHING)));
                err.println("pgrepl demo: slot " + slot + ", publication " + PUBLICATION + "; running the workload");
                long endLsn = workload(sql, major);

                StreamOptions s = new StreamOptions(); // the defaults of 'pgrepl stream': typed JSON
                s.url = url;
                s.slot = slot;
                s.publications.add(PUBLICATION);
                s.endLsn = endLsn;
                s.idleExit = Duration.ofSeconds(60); // a safety net; the end LSN normally comes first
                if (major >= 14) s.messages = true;
                int rc = new StreamRun(s, Output.stdout(out), err).run(repl, null);
                // The stream is stopped; the connection is free again for the drop.
                await(repl.dropReplicationSlot(slot, false));
                err.println("pgrepl demo: done (stream stopped, slot dropped)");
                return rc;
            } finally {
                await(sql.simpleQuery("DROP PUBLICATION IF EXISTS " + PUBLICATION + "; DROP TABLE IF EXISTS " + TABLE));
            }
        }
    }

    /** Runs the changes; returns an LSN that only the last transaction's commit passes. */
    private static long workload(PgConnection sql, int major) throws Exception {
        await(sql.simpleQuery("INSERT INTO " + TABLE + " VALUES"
                + " (1, 'apple', 0.45, '{fruit,red}', '2026-01-15 09:30:00+00', '{\"origin\": \"NZ\"}', true),"
                + " (2, 'pear', 0.60, '{fruit}', '2026-01-15 09:31:00+00', NULL, false),"
                + " (3, 'plum', 1.20, '{}', NULL, '{\"organic\": true}', true)"));
        await(sql.simpleQuery("UPDATE " + TABLE + " SET price = 0.50, in_stock = false WHERE id = 1"));
        await(sql.simpleQuery("DELETE FROM " + TABLE + " WHERE id = 2"));
        // A primary-key change: the update carries the old key.
        await(sql.simpleQuery("UPDATE " + TABLE + " SET id = 30 WHERE id = 3"));
        if (major >= 14) {
            await(sql.simpleQuery("SELECT pg_logical_emit_message(false, 'pgrepl-demo', 'hello, not part of a transaction')"));
        }
        String before = await(sql.query("SELECT pg_current_wal_insert_lsn()")).singleRow().get(0);
        // Several changes in one transaction: one begin and one commit around them. Every earlier
        // commit ends at or before 'before'; this one's ends after it.
        await(sql.simpleQuery("BEGIN;"
                + " INSERT INTO " + TABLE + " VALUES (4, 'fig', 2.10, '{fruit,dried}', '2026-01-15 09:40:00+00', '[1, 2]', true);"
                + " UPDATE " + TABLE + " SET tags = array_append(tags, 'sale') WHERE id = 1;"
                + (major >= 14 ? " SELECT pg_logical_emit_message(true, 'pgrepl-demo', 'part of the transaction');" : "")
                + " DELETE FROM " + TABLE + " WHERE id = 30;"
                + " COMMIT"));
        return Lsn.parse(before) + 1;
    }
}
