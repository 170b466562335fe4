package io.pgrepl.cli;

import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.OriginFilter;
import io.pgrepl.client.stream.StreamingMode;
import io.pgrepl.codec.Lsn;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** {@code pgrepl stream}'s options (short forms after pg_recvlogical's) and their parsing. */
final class StreamOptions {
    /** Output formats: typed whole transactions, or every pgoutput message as sent. */
    enum Format { JSON, PROTOCOL }

    /** --format json: where the columns' type names go (docs/cli.md). */
    enum ColumnTypes { NONE, RELATION, CHANGE }

    static final List<Opts.Spec> SPECS = concat(List.of(
            Opts.Spec.value("dbname", 'd', "CONNSTR", "connection URI or keyword/value string (instead of the URL argument)", "PG* environment"),
            Opts.Spec.value("slot", 'S', "NAME", "replication slot to stream from (required)", null),
            Opts.Spec.value("publication", 'P', "NAME[,NAME]", "publication(s) to stream (required; repeatable)", null),
            Opts.Spec.value("format", "json|protocol", "json: committed transactions with typed values; protocol: every pgoutput message with exact text values", "json"),
            Opts.Spec.value("file", 'f', "FILE", "append the output to FILE instead of stdout ('-' = stdout)", "-"),
            Opts.Spec.value("fsync-interval", 'F', "SECONDS", "with --file: fsync this often and acknowledge only what was fsynced (0: never fsync, acknowledge what was written)", "10"),
            Opts.Spec.value("status-interval", 's', "SECONDS", "how often a status update goes to the server", "10"),
            Opts.Spec.value("read-coalescing", "MS", "after a small socket read, wait this long before the next (fewer wake-ups"
                    + " while draining a backlog; 0: read as data comes)", "1"),
            Opts.Spec.flag("create-slot", "create the slot (pgoutput) before streaming"),
            Opts.Spec.flag("if-not-exists", "with --create-slot: use the slot if it exists already"),
            Opts.Spec.flag("temporary", "with --create-slot: a temporary slot, dropped when the stream ends"),
            Opts.Spec.value("snapshot", "[=export|incremental]", "export (bare --snapshot), with --create-slot: first copy the"
                    + " published tables as of the new slot's snapshot (snapshot_start, one read line per row, snapshot_end), then"
                    + " stream from there; incremental: read the tables in key-ordered chunks while the stream runs, on a new or"
                    + " existing slot (docs/cli.md)", null),
            Opts.Spec.value("snapshot-workers", "N", "with --snapshot: parallel COPY connections; with --snapshot=incremental:"
                    + " key ranges (connections) per table", "4"),
            Opts.Spec.value("snapshot-tables", "T1[,T2]", "with --snapshot=incremental: the tables to read (schema.table)",
                    "every table of the publications"),
            Opts.Spec.value("surrogate-key", "COLUMN", "with --snapshot=incremental and --snapshot-tables: read those tables"
                    + " by this unique, not-null column instead of their key (a table with no primary key or replica identity"
                    + " index)", null),
            Opts.Spec.value("chunk-size", "N", "with --snapshot=incremental: rows per chunk", "1024"),
            Opts.Spec.value("snapshot-state", "FILE", "with --snapshot=incremental: keep its progress in FILE (replaced atomically"
                    + " as positions are confirmed) and resume from it on the next start with the same slot", null),
            Opts.Spec.flag("accept-signals", "act on incremental snapshot signals (pgrepl snapshot request|stop|pause|resume):"
                    + " logical messages with the prefix pgrepl (14+; turns on --messages), and rows of --signal-table"),
            Opts.Spec.value("signal-table", "schema.table", "with --accept-signals: also act on rows inserted into this"
                    + " Debezium-shaped signal table (in the publication; the way to signal on PostgreSQL 10 to 13)", null),
            Opts.Spec.flag("keep-slot-on-failure", "with --snapshot: keep the (permanent) slot if the snapshot fails"
                    + " (default: drop it, so the command can simply be run again)"),
            Opts.Spec.value("proto-version", "N", "pgoutput protocol version 1-4", "highest the server supports"),
            Opts.Spec.value("streaming", "off|on|parallel", "let the server stream large in-progress transactions (proto 2+)", "server default"),
            Opts.Spec.value("column-types", "none|relation|change", "json: where the columns' type names go: nowhere (values are"
                    + " typed JSON already), a relation line before a table's first change and after its definition changes,"
                    + " or column_types on every change line", "none"),
            Opts.Spec.flag("binary", "ask for binary column values (the json format decodes them to the same JSON)"),
            Opts.Spec.flag("messages", "include logical decoding messages (pg_logical_emit_message)"),
            Opts.Spec.flag("schema-changes", "a schema line before the first row of each table's new shape (columns added,"
                    + " dropped, renamed, retyped, key, replica identity, name); with pgrepl DDL capture (pgrepl ddl install, 14+)"
                    + " also CREATE and DROP TABLE and the statement (turns on pgoutput messages; other messages still need"
                    + " --messages)"),
            Opts.Spec.flag("two-phase", "decode prepared transactions (proto 3+; json prints them when committed)"),
            Opts.Spec.value("origin", "any|none", "changes of any origin, or only those without one", "any"),
            Opts.Spec.value("start-lsn", 'I', "X/X", "start position", "the slot's confirmed position"),
            Opts.Spec.value("end-lsn", 'E', "X/X", "stop after the first commit at or past this position", null),
            Opts.Spec.value("idle-exit", "SECONDS", "stop after this long without changes once streaming has started", null),
            Opts.Spec.flag("reconnect", "reconnect after transient failures (also retries the first connection)"),
            Opts.Spec.value("connect-deadline", "SECONDS", "with --reconnect: how long the first connection is retried", "60"),
            Opts.Spec.value("plugin", "NAME", "output plugin (only pgoutput)", "pgoutput"),
            Opts.Spec.flag("verbose", 'v', "say what is happening on stderr (start, confirmations, reconnects, progress)")),
            StandbySlot.SPECS, OAuthTokens.SPECS);

    @SafeVarargs
    private static List<Opts.Spec> concat(List<Opts.Spec>... lists) {
        List<Opts.Spec> all = new ArrayList<>();
        for (List<Opts.Spec> l : lists) all.addAll(l);
        return List.copyOf(all);
    }

    static final Opts.Help HELP = new Opts.Help(
            "pgrepl stream [URL] --slot S --publication P[,P2] [options]",
            "Streams a logical replication slot (pgoutput) as JSON lines. A transaction is acknowledged to the\n"
                    + "server only after its lines were written (and, with --file, fsynced). SIGINT/SIGTERM: finish the\n"
                    + "current transaction, acknowledge it, stop cleanly, exit 0. A second signal while that stop waits\n"
                    + "(e.g. for a stdout reader) exits at once, 130 (SIGINT) or 143 (SIGTERM), confirming nothing more:\n"
                    + "the next run prints again what followed the last confirmed commit.\n"
                    + "\n"
                    + "--snapshot (with --create-slot, on a slot that does not exist yet) first copies the published tables\n"
                    + "as of the slot's creation, then streams every later change; the lsn of all three line types is the\n"
                    + "slot's consistent point, and read values have the same JSON form as inserts of the chosen --format:\n"
                    + "  {\"type\":\"snapshot_start\",\"lsn\":\"0/1A2B3C8\",\"tables\":[\"public.orders\",\"public.users\"]}\n"
                    + "  {\"type\":\"read\",\"lsn\":\"0/1A2B3C8\",\"schema\":\"public\",\"table\":\"users\",...,\"new\":{\"id\":1,\"name\":\"ann\"}}\n"
                    + "  {\"type\":\"snapshot_end\",\"lsn\":\"0/1A2B3C8\",\"rows\":2}\n"
                    + "If the snapshot fails (or is interrupted) the command exits 1 with the cause, and the new slot is\n"
                    + "dropped unless --keep-slot-on-failure; output without a snapshot_end line is incomplete.\n"
                    + "\n"
                    + "--snapshot=incremental reads the tables while the stream runs; a table that cannot be read (missing,\n"
                    + "no usable key) is named on stderr with why, the stream goes on, and the command exits 1 when it stops.",
            SPECS,
            "pgrepl stream postgresql://repl@db/app -S app_slot -P app_pub --create-slot --if-not-exists -v\n"
                    + "pgrepl stream postgresql://repl@db/app -S app_slot -P app_pub --create-slot --snapshot --snapshot-workers 8\n"
                    + "pgrepl stream postgresql://repl@db/app -S app_slot -P app_pub --snapshot=incremental --snapshot-state app.snap\n"
                    + "pgrepl stream -d 'host=db dbname=app' -S app_slot -P app_pub -f changes.jsonl -F 5");

    String url;
    String slot;
    final List<String> publications = new ArrayList<>();
    Format format = Format.JSON;
    Path file;
    Duration fsyncInterval = Duration.ofSeconds(10);
    Duration statusInterval = Duration.ofSeconds(10);
    Duration readCoalescing = Duration.ofMillis(1);
    boolean createSlot;
    boolean ifNotExists;
    boolean temporary;
    /** --snapshot / --snapshot=export: the exported-snapshot copy. */
    boolean snapshot;
    /** --snapshot=incremental ({@link IncrementalSource}). */
    boolean incremental;
    /** --snapshot-tables; empty: every table of the publications. */
    final List<String> snapshotTables = new ArrayList<>();
    /** --surrogate-key, or null: the column the --snapshot-tables are read by. */
    String surrogateKey;
    int chunkSize = 1024;
    /** --snapshot-state, or null. */
    Path snapshotState;
    int snapshotWorkers = 4;
    /** --accept-signals: the stream runs {@link IncrementalSource} and acts on signals. */
    boolean acceptSignals;
    /** --signal-table, or null. */
    String signalTable;
    boolean keepSlotOnFailure;
    int protoVersion = LogicalReplicationOptions.PROTO_AUTO;
    StreamingMode streaming;
    Boolean binary;
    ColumnTypes columnTypes = ColumnTypes.NONE;
    Boolean messages;
    /** --schema-changes. */
    boolean schemaChanges;
    /** pgoutput messages are on only to read DDL capture's (--schema-changes on 14+): no message lines. */
    boolean messagesForSchemaOnly;
    Boolean twoPhase;
    OriginFilter origin;
    long startLsn;
    long endLsn;
    Duration idleExit;
    boolean reconnect;
    Duration connectDeadline = Duration.ofSeconds(60);
    boolean verbose;
    /** --primary with --log-standby-snapshot ({@link StandbySlot}), or null. */
    io.pgrepl.client.ConnectionConfig primary;
    /** --oauth-token-command, --oauth-token-file ({@link OAuthTokens}), or null. */
    String oauthCommand;
    String oauthFile;

    /** Incremental snapshot reads may run: from the start (--snapshot=incremental) or when signalled. */
    boolean incrementalReads() {
        return incremental || acceptSignals;
    }

    LogicalReplicationOptions options() {
        LogicalReplicationOptions.Builder b = LogicalReplicationOptions.builder(slot).publications(publications)
                .protoVersion(protoVersion).startLsn(startLsn).binary(binary).messages(messages)
                .twoPhase(twoPhase).origin(origin).statusInterval(statusInterval).readCoalescing(readCoalescing);
        if (streaming != null) b.streaming(streaming);
        return b.build();
    }

    static StreamOptions parse(String[] args) throws UsageException {
        Opts.Parsed p = Opts.parse(SPECS, args);
        StreamOptions s = new StreamOptions();
        if (p.positional.size() > 1) throw new UsageException("more than one URL");
        if (!p.positional.isEmpty() && p.has("dbname")) throw new UsageException("give the URL or -d/--dbname, not both");
        s.url = p.positional.isEmpty() ? p.get("dbname") : p.positional.get(0);
        if (s.url == null) s.url = ""; // everything from the PG* environment, as libpq does
        s.slot = p.get("slot");
        for (String list : p.all("publication")) {
            for (String name : list.split(",", -1)) {
                if (name.isBlank()) throw new UsageException("empty publication name in --publication '" + CliErrors.shown(list) + "'");
                s.publications.add(name.trim());
            }
        }
        String format = p.get("format");
        if (format != null) {
            s.format = switch (format) {
                case "json" -> Format.JSON;
                case "protocol" -> Format.PROTOCOL;
                default -> throw new UsageException("--format takes json or protocol");
            };
        }
        String file = p.get("file");
        if (file != null && !file.equals("-")) s.file = Path.of(file);
        s.fsyncInterval = Duration.ofSeconds(p.intValue("fsync-interval", 10, 0, 86_400));
        if (p.has("fsync-interval") && s.file == null) throw new UsageException("--fsync-interval needs --file");
        s.statusInterval = Duration.ofSeconds(p.intValue("status-interval", 10, 1, 86_400));
        s.readCoalescing = Duration.ofMillis(p.intValue("read-coalescing", 1, 0,
                (int) LogicalReplicationOptions.MAX_READ_COALESCING.toMillis()));
        s.createSlot = p.has("create-slot");
        s.ifNotExists = p.has("if-not-exists");
        s.temporary = p.has("temporary");
        String snapshot = p.get("snapshot");
        if (snapshot != null) {
            switch (snapshot) {
                case "true", "export" -> s.snapshot = true;
                case "incremental" -> s.incremental = true;
                default -> throw new UsageException("--snapshot takes export or incremental, not '" + CliErrors.shown(snapshot) + "'");
            }
        }
        for (String list : p.all("snapshot-tables")) {
            for (String name : list.split(",", -1)) {
                if (name.isBlank()) throw new UsageException("empty table name in --snapshot-tables '" + CliErrors.shown(list) + "'");
                s.snapshotTables.add(name.trim());
            }
        }
        s.surrogateKey = p.get("surrogate-key");
        s.chunkSize = p.intValue("chunk-size", 1024, 1, 1_000_000);
        if (p.has("snapshot-state")) s.snapshotState = Path.of(p.get("snapshot-state"));
        s.snapshotWorkers = p.intValue("snapshot-workers", 4, 1, 64);
        s.keepSlotOnFailure = p.has("keep-slot-on-failure");
        s.acceptSignals = p.has("accept-signals");
        s.signalTable = p.get("signal-table");
        s.protoVersion = p.intValue("proto-version", LogicalReplicationOptions.PROTO_AUTO, 1, 4);
        String streaming = p.get("streaming");
        if (streaming != null) {
            s.streaming = switch (streaming) {
                case "off" -> StreamingMode.OFF;
                case "on" -> StreamingMode.ON;
                case "parallel" -> StreamingMode.PARALLEL;
                default -> throw new UsageException("--streaming takes off, on or parallel");
            };
        }
        if (p.has("binary")) s.binary = true;
        String types = p.get("column-types");
        if (types != null) {
            s.columnTypes = switch (types) {
                case "none" -> ColumnTypes.NONE;
                case "relation" -> ColumnTypes.RELATION;
                case "change" -> ColumnTypes.CHANGE;
                default -> throw new UsageException("--column-types takes none, relation or change");
            };
            if (s.format != Format.JSON) throw new UsageException("--column-types needs --format json");
        }
        if (p.has("messages")) s.messages = true;
        s.schemaChanges = p.has("schema-changes");
        if (p.has("two-phase")) s.twoPhase = true;
        String origin = p.get("origin");
        if (origin != null) {
            s.origin = switch (origin) {
                case "any" -> OriginFilter.ANY;
                case "none" -> OriginFilter.NONE;
                default -> throw new UsageException("--origin takes any or none");
            };
        }
        if (p.has("start-lsn")) s.startLsn = lsn(p.get("start-lsn"), "--start-lsn");
        if (p.has("end-lsn")) s.endLsn = lsn(p.get("end-lsn"), "--end-lsn");
        if (p.has("idle-exit")) s.idleExit = Duration.ofSeconds(p.intValue("idle-exit", 0, 1, Integer.MAX_VALUE));
        s.reconnect = p.has("reconnect");
        s.connectDeadline = Duration.ofSeconds(p.intValue("connect-deadline", 60, 0, Integer.MAX_VALUE));
        if (p.has("connect-deadline") && !s.reconnect) throw new UsageException("--connect-deadline needs --reconnect");
        String plugin = p.get("plugin");
        if (plugin != null && !plugin.equals("pgoutput")) {
            throw new UsageException("only the pgoutput plugin is supported, not '" + CliErrors.shown(plugin) + "'");
        }
        s.verbose = p.has("verbose");
        s.oauthCommand = p.get("oauth-token-command");
        s.oauthFile = p.get("oauth-token-file");
        s.primary = StandbySlot.primary(p);

        if (s.slot == null) throw new UsageException("missing --slot");
        if (s.publications.isEmpty()) throw new UsageException("missing --publication");
        if (s.temporary && !s.createSlot) throw new UsageException("--temporary needs --create-slot");
        if (s.ifNotExists && !s.createSlot) throw new UsageException("--if-not-exists needs --create-slot");
        if (p.has("snapshot-workers") && !s.snapshot && !s.incrementalReads()) throw new UsageException("--snapshot-workers needs --snapshot");
        if (p.has("snapshot-tables") && !s.incremental) throw new UsageException("--snapshot-tables needs --snapshot=incremental");
        // One column for every table named: a surrogate key for all the publications' tables would rarely exist in each.
        if (s.surrogateKey != null && (!s.incremental || s.snapshotTables.isEmpty())) {
            throw new UsageException("--surrogate-key needs --snapshot=incremental and --snapshot-tables (the tables to read by it)");
        }
        if (s.surrogateKey != null && s.surrogateKey.isBlank()) throw new UsageException("--surrogate-key needs a column name");
        for (String o : List.of("chunk-size", "snapshot-state")) {
            if (!s.incrementalReads() && p.has(o)) throw new UsageException("--" + o + " needs --snapshot=incremental or --accept-signals");
        }
        if (s.signalTable != null && !s.acceptSignals) throw new UsageException("--signal-table needs --accept-signals");
        if (s.signalTable != null) {
            try {
                io.pgrepl.client.replication.Identifiers.quoteQualifiedName(s.signalTable);
            } catch (IllegalArgumentException e) {
                throw new UsageException("--signal-table: " + e.getMessage());
            }
        }
        String what = s.incremental ? "--snapshot=incremental" : "--accept-signals";
        if (s.incrementalReads() && s.format != Format.JSON) throw new UsageException(what + " needs --format json");
        if (s.incrementalReads() && Boolean.TRUE.equals(s.binary)) {
            throw new UsageException(what + " cannot be combined with --binary: chunk keys are compared as text");
        }
        if (s.acceptSignals && s.snapshot) {
            throw new UsageException("--accept-signals cannot be combined with the exported --snapshot (use --snapshot=incremental)");
        }
        if (s.keepSlotOnFailure && !s.snapshot) throw new UsageException("--keep-slot-on-failure needs --snapshot");
        if (s.keepSlotOnFailure && s.temporary) {
            throw new UsageException("--keep-slot-on-failure cannot be combined with --temporary: a temporary slot ends with the connection");
        }
        if (s.snapshot && p.has("start-lsn")) {
            throw new UsageException("--start-lsn cannot be combined with --snapshot: the stream starts where the snapshot was taken");
        }
        if (s.primary != null && !s.createSlot) throw new UsageException("--log-standby-snapshot needs --create-slot");
        if (s.primary != null && s.snapshot) {
            throw new UsageException("--log-standby-snapshot cannot be combined with --snapshot (export) yet: create the slot"
                    + " with pgrepl slot create ... --snapshot export, or read the tables with --snapshot=incremental");
        }
        if (s.temporary && s.reconnect) {
            throw new UsageException("--temporary cannot be combined with --reconnect: the slot dies with the connection");
        }
        return s;
    }

    private static long lsn(String v, String option) throws UsageException {
        try {
            return Lsn.parse(v);
        } catch (RuntimeException e) {
            throw new UsageException(option + " needs an LSN like 0/16B3748, got '" + CliErrors.shown(v) + "'");
        }
    }
}
