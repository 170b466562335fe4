package io.pgrepl.cli;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.replication.SnapshotMode;
import io.pgrepl.client.stream.StreamingMode;
import io.pgrepl.codec.Lsn;
import io.pgrepl.testkit.PgServer;

import java.io.PrintStream;
import java.time.Duration;

import static io.pgrepl.cli.StreamCommand.await;

/**
 * {@code pgrepl demo [--url URL] [--pg-version N]}: starts an embedded PostgreSQL (test kit, SCRAM)
 * unless given a URL, creates a table, a publication and a temporary slot, runs a small mixed
 * workload (insert, update, delete, a transaction large enough to be streamed, logical messages),
 * streams it as JSON lines to stdout like {@code pgrepl stream}, then stops the stream, drops the
 * slot, the publication and the table, and stops the server.
 */
final class DemoCommand implements Main.Command {
    static final String TABLE = "pgrepl_demo_items";
    static final String PUBLICATION = "pgrepl_demo_pub";
    static final int BIG_ROWS = 2000;
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
                        + "runs a small workload (insert, update, delete, a streamed large transaction, logical messages)\n"
                        + "and prints it as 'pgrepl stream --format protocol' does; then cleans up.",
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
        if (url != null) return demo(url, out, err);
        err.println("pgrepl demo: starting PostgreSQL " + version + " (embedded, SCRAM) ...");
        try (PgServer server = PgServer.builder().version(version).setting("max_replication_slots", "10").start()) {
            err.println("pgrepl demo: PostgreSQL " + server.version() + " on " + server.host() + ":" + server.port());
            return demo(server.url(server.superuser(), "postgres"), out, err);
        }
    }

    private static int demo(String url, PrintStream out, PrintStream err) throws Exception {
        ConnectionConfig base = ConnectionConfig.parse(url);
        String slot = "pgrepl_demo_" + ProcessHandle.current().pid();
        try (PgConnection sql = await(PgConnection.connect(base.toBuilder().replication(ReplicationMode.NONE).build()));
             PgConnection repl = await(PgConnection.connect(base.toBuilder().replication(ReplicationMode.DATABASE).build()))) {
            int major = sql.serverMajor();
            if (major < 10) throw new IllegalStateException("logical replication needs PostgreSQL 10 or later");
            await(sql.simpleQuery("DROP TABLE IF EXISTS " + TABLE + "; DROP PUBLICATION IF EXISTS " + PUBLICATION));
            await(sql.simpleQuery("CREATE TABLE " + TABLE + " (id int PRIMARY KEY, name text, qty int, pad text)"));
            await(sql.simpleQuery("CREATE PUBLICATION " + PUBLICATION + " FOR TABLE " + TABLE));
            try {
                if (major >= 13) {
                    // Small reorder buffer for this walsender only: the big transaction gets streamed.
                    await(repl.simpleQuery("SET logical_decoding_work_mem = '64kB'"));
                }
                await(repl.createReplicationSlot(CreateSlotOptions.logical(slot, "pgoutput").withTemporary(true)
                        .withSnapshot(SnapshotMode.NOTHING)));
                err.println("pgrepl demo: slot " + slot + ", publication " + PUBLICATION + "; running the workload");
                long endLsn = workload(sql, major);

                StreamOptions s = new StreamOptions();
                s.format = StreamOptions.Format.PROTOCOL;
                s.url = url;
                s.slot = slot;
                s.publications.add(PUBLICATION);
                s.endLsn = endLsn;
                s.idleExit = Duration.ofSeconds(60); // a safety net; the end LSN normally comes first
                if (major >= 14) {
                    s.messages = true;
                    s.streaming = StreamingMode.ON;
                }
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

    /** Runs the changes; returns an LSN that only the final marker transaction's commit passes. */
    private static long workload(PgConnection sql, int major) throws Exception {
        await(sql.simpleQuery("INSERT INTO " + TABLE + " VALUES (1, 'apple', 10, NULL), (2, 'pear', 5, NULL), (3, 'plum', 7, NULL)"));
        await(sql.simpleQuery("UPDATE " + TABLE + " SET qty = qty + 1 WHERE id = 1"));
        await(sql.simpleQuery("DELETE FROM " + TABLE + " WHERE id = 2"));
        // ~250 kB in one transaction: beyond logical_decoding_work_mem, so streamed on 14+.
        await(sql.simpleQuery("BEGIN; INSERT INTO " + TABLE + " SELECT g, 'bulk-' || g, g % 100, repeat('x', 100)"
                + " FROM generate_series(1000, " + (999 + BIG_ROWS) + ") g; COMMIT"));
        if (major >= 14) {
            await(sql.simpleQuery("SELECT pg_logical_emit_message(false, 'pgrepl-demo', 'not transactional')"));
            await(sql.simpleQuery("BEGIN; SELECT pg_logical_emit_message(true, 'pgrepl-demo', 'transactional');"
                    + " UPDATE " + TABLE + " SET name = 'plum!' WHERE id = 3; COMMIT"));
        }
        String before = await(sql.query("SELECT pg_current_wal_insert_lsn()")).singleRow().get(0);
        await(sql.simpleQuery("INSERT INTO " + TABLE + " VALUES (4, 'marker', 0, NULL)"));
        // Every earlier commit ends at or before this position (the last one exactly at it); the
        // marker's commit ends after it.
        return Lsn.parse(before) + 1;
    }
}
