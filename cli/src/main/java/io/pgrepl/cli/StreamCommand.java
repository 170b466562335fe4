package io.pgrepl.cli;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgClientException;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.PgException;
import io.pgrepl.client.QueryResult;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.Row;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.replication.SnapshotMode;
import io.pgrepl.client.snapshot.InitialSnapshotMode;
import io.pgrepl.client.snapshot.SnapshotException;
import io.pgrepl.client.snapshot.SnapshotOptions;
import io.pgrepl.codec.Lsn;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * {@code pgrepl stream URL --slot S --publication P [options]}: checks the slot and the
 * publications, creates the slot if asked, then hands over to {@link StreamRun}. Output formats:
 * {@link TxJson} (json, the default) and {@link ChangeJson} (protocol).
 */
final class StreamCommand implements Main.Command {
    @Override
    public String summary() {
        return "stream a logical replication slot (pgoutput) as JSON lines";
    }

    @Override
    public Opts.Help help() {
        return StreamOptions.HELP;
    }

    @Override
    public int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        StreamOptions s = StreamOptions.parse(args);
        requireSlotCreation(s);
        ConnectionConfig config = OAuthTokens.apply(IdentifyCommand.parse(s.url), s.oauthCommand, s.oauthFile, java.util.Map.of())
                .toBuilder().replication(ReplicationMode.DATABASE).build();
        PgConnection conn = connect(config, s, err);
        try (Output output = s.file == null ? Output.stdout(out) : Output.file(s.file, s.fsyncInterval.toSeconds() > 0,
                cut -> err.println("pgrepl: " + s.file + " ended in a partial line (" + cut + " bytes, from a run that stopped mid-write);"
                        + " cut it off: it was never confirmed and is printed again"))) {
            StreamRun run = new StreamRun(s, output, err);
            run.slotConfirmedLsn(checkAndCreate(conn, s, err));
            if (s.incremental && s.snapshotTables.isEmpty()) s.snapshotTables.addAll(IncrementalSource.publishedTables(conn, s.publications));
            if (s.acceptSignals) IncrementalSource.checkSignalChannels(conn, s);
            if (s.schemaChanges) schemaChanges(conn, s, err);
            if (s.reconnect && !s.snapshot) {
                // The reconnecting stream opens its own connections (after the snapshot, which needs this one).
                conn.close();
                conn = null;
            }
            return run.run(conn, config);
        } finally {
            if (conn != null) conn.close();
        }
    }

    /**
     * --schema-changes: on 14+ DDL capture's messages can reach the stream, so pgoutput messages are
     * turned on (their lines stay off unless --messages or --accept-signals asked for them). With -v,
     * says whether DDL capture is installed in the database.
     */
    private static void schemaChanges(PgConnection conn, StreamOptions s, PrintStream err) throws Exception {
        if (conn.serverVersionNum() < io.pgrepl.client.schema.DdlCapture.MIN_SERVER_VERSION_NUM) {
            if (s.verbose) err.println("pgrepl: schema changes from Relation messages only: PostgreSQL " + conn.serverMajor()
                    + " does not pass logical messages (DDL capture) to a pgoutput stream");
            return;
        }
        if (s.messages == null) {
            s.messages = true;
            s.messagesForSchemaOnly = true;
        }
        if (s.verbose) {
            var status = await(io.pgrepl.client.schema.DdlCapture.status(conn));
            err.println("pgrepl: DDL capture " + switch (status) {
                case ENABLED -> "installed: schema lines carry CREATE, DROP and the statements";
                case INCOMPLETE -> "incomplete (a trigger is missing or disabled): run pgrepl ddl install again";
                case NOT_INSTALLED -> "not installed: schema lines come from Relation messages only (pgrepl ddl install)";
            });
        }
    }

    /** --snapshot without --create-slot: refused before anything runs (exit 1). */
    private static void requireSlotCreation(StreamOptions s) {
        try {
            SnapshotOptions.requireSlotCreation(s.snapshot ? InitialSnapshotMode.INITIAL : InitialSnapshotMode.NEVER, s.createSlot);
        } catch (SnapshotException e) {
            throw new IllegalStateException("--snapshot needs --create-slot: " + e.getMessage(), e);
        }
    }

    /** One attempt, or with --reconnect retries of transient failures until --connect-deadline. */
    private static PgConnection connect(ConnectionConfig config, StreamOptions s, PrintStream err) throws Exception {
        long deadline = System.nanoTime() + s.connectDeadline.toNanos();
        long delayMs = 200;
        while (true) {
            try {
                return await(PgConnection.connect(config));
            } catch (Exception e) {
                if (!s.reconnect || !transientConnectFailure(e) || System.nanoTime() + delayMs * 1_000_000 > deadline) throw e;
                err.println("pgrepl: cannot connect (" + CliErrors.oneLine(e) + "); retrying in " + delayMs + " ms");
                Thread.sleep(delayMs);
                delayMs = Math.min(delayMs * 2, 5000);
            }
        }
    }

    /** Worth retrying: the server is not there yet, is starting or shutting down, or is full. */
    static boolean transientConnectFailure(Throwable t) {
        t = CliErrors.unwrap(t);
        if (t instanceof PgClientException pce) {
            return pce.kind() == PgClientException.Kind.CONNECTION || pce.kind() == PgClientException.Kind.TIMEOUT;
        }
        if (t instanceof PgException pe && pe.sqlState() != null) {
            String state = pe.sqlState();
            return state.startsWith("57P") || state.startsWith("08") || state.equals("53300");
        }
        return t instanceof IOException;
    }

    /**
     * Up-front checks (exit 1 with a clear message, before anything streams): the slot exists
     * unless it is being created, and is a pgoutput slot of this database; every publication exists.
     * Returns the slot's confirmed_flush_lsn (0 when just created).
     */
    private static long checkAndCreate(PgConnection conn, StreamOptions s, PrintStream err) throws Exception {
        QueryResult slot = await(conn.query("SELECT slot_type, plugin, confirmed_flush_lsn, database = current_database()"
                + " FROM pg_catalog.pg_replication_slots WHERE slot_name = " + literal(s.slot)));
        List<String> missing = new ArrayList<>(s.publications);
        StringBuilder in = new StringBuilder();
        for (String p : s.publications) in.append(in.length() == 0 ? "" : ",").append(literal(p));
        for (Row r : await(conn.query("SELECT pubname FROM pg_catalog.pg_publication WHERE pubname IN (" + in + ")")).rows()) {
            missing.remove(r.get(0));
        }
        if (!missing.isEmpty()) {
            throw new IllegalStateException("publication \"" + missing.get(0) + "\" does not exist in this database"
                    + " (create it with CREATE PUBLICATION " + missing.get(0) + " FOR TABLE ...)");
        }
        long confirmed = 0;
        if (slot.rows().isEmpty()) {
            if (!s.createSlot) {
                throw new IllegalStateException("replication slot \"" + s.slot + "\" does not exist"
                        + " (add --create-slot to create it)");
            }
        } else {
            Row r = slot.rows().get(0);
            if (!"logical".equals(r.get(0)) || !"pgoutput".equals(r.get(1)) || !"t".equals(r.get(3))) {
                throw new IllegalStateException("replication slot \"" + s.slot + "\" is not a pgoutput slot of this database"
                        + " (type " + r.get(0) + ", plugin " + r.get(1) + ")");
            }
            if (s.snapshot) {
                throw new IllegalStateException("replication slot \"" + s.slot + "\" already exists: --snapshot needs a new slot,"
                        + " since an exported snapshot exists only at slot creation (drop the slot, use another name, or stream"
                        + " without --snapshot)");
            }
            if (s.createSlot && !s.ifNotExists) {
                throw new IllegalStateException("replication slot \"" + s.slot + "\" already exists"
                        + " (add --if-not-exists to use it)");
            }
            confirmed = r.get(2) == null ? 0 : Lsn.parse(r.get(2));
        }
        if (s.createSlot && slot.rows().isEmpty() && !s.snapshot) {
            // With --snapshot the library creates the slot (with an exported snapshot) in StreamRun.
            CreateSlotOptions o = CreateSlotOptions.logical(s.slot, "pgoutput").withTemporary(s.temporary)
                    .withSnapshot(SnapshotMode.NOTHING);
            if (Boolean.TRUE.equals(s.twoPhase)) o = o.withTwoPhase(true);
            try {
                StandbySlot.create(conn, o, s.primary, err);
                if (s.verbose) err.println("pgrepl: created slot " + s.slot);
            } catch (PgException e) {
                // Created meanwhile by someone else: fine with --if-not-exists.
                if (!s.ifNotExists || !"42710".equals(e.sqlState())) throw e;
            }
        }
        return confirmed;
    }

    /** A SQL string literal (standard_conforming_strings is on from 9.1). */
    static String literal(String s) {
        if (s.indexOf('\0') >= 0) throw new IllegalArgumentException("NUL in a name");
        return "'" + s.replace("'", "''") + "'";
    }

    static <T> T await(CompletionStage<T> stage) throws Exception {
        try {
            return stage.toCompletableFuture().get(120, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof Exception ex) throw ex;
            throw e;
        }
    }
}
