package io.pgrepl.cli;

import static io.pgrepl.cli.IdentifyCommand.await;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.replication.Identifiers;
import io.pgrepl.client.snapshot.incremental.MalformedSignalException;
import io.pgrepl.client.snapshot.incremental.SnapshotSignal;
import io.pgrepl.client.snapshot.incremental.SnapshotSignals;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * {@code pgrepl snapshot request|stop|pause|resume URL --slot S [TABLE...]}: signals the
 * incremental snapshot of a running stream. On 14+ through a transactional logical message with
 * the prefix {@code pgrepl}, which reaches the stream through its own slot and writes no table; on
 * 10 to 13 (pgoutput decodes messages from 14 on) by a row in a Debezium-shaped signal table that
 * the stream's publication covers. Prints what it sent as one JSON line.
 */
final class SnapshotCommand implements Main.Command {
    private static final String USAGE = "pgrepl snapshot request URL --slot S TABLE... [--where 'schema.table=condition']...\n"
            + "pgrepl snapshot stop URL --slot S [TABLE...]\n"
            + "pgrepl snapshot pause|resume URL --slot S\n"
            + "  (any of them with --signal-table schema.table instead of --slot on PostgreSQL 10 to 13)";
    private static final List<Opts.Spec> OPTIONS = List.of(
            Opts.Spec.value("slot", "S", "the slot of the stream to signal (its logical messages reach only streams of this slot)", null),
            Opts.Spec.value("where", "TABLE=CONDITION", "request: read only the rows of TABLE matching CONDITION (repeatable)", null),
            Opts.Spec.value("surrogate-key", "COLUMN", "request: walk the tables by this unique, not-null column instead of their key", null),
            Opts.Spec.value("signal-table", "schema.table", "insert the signal into this Debezium-shaped table instead of"
                    + " emitting a logical message (PostgreSQL 10 to 13, or a stream reading a signal table)", null),
            Opts.Spec.value("id", "ID", "the signal's id", "a random UUID"));

    @Override
    public String summary() {
        return "request, stop, pause or resume an incremental snapshot of a running stream";
    }

    @Override
    public Map<String, List<Opts.Spec>> subcommands() {
        Map<String, List<Opts.Spec>> m = new LinkedHashMap<>();
        for (String s : List.of("request", "stop", "pause", "resume")) m.put(s, OPTIONS);
        return m;
    }

    @Override
    public Opts.Help help() {
        return new Opts.Help(USAGE,
                "Sends a signal to a running 'pgrepl stream --accept-signals' (or any pgrepl stream of that slot that\n"
                        + "accepts signals): request reads the tables again in key-ordered chunks while the stream goes on;\n"
                        + "stop ends it (for the tables given, else all); pause and resume hold and continue it. On\n"
                        + "PostgreSQL 14+ the signal is the content of pg_logical_emit_message(true, 'pgrepl', json); with\n"
                        + "--signal-table it is a row (id, type, data) as Debezium's signal table holds it. Prints the signal sent as JSON.",
                OPTIONS, "pgrepl snapshot request postgresql://app@db/app --slot app_slot public.orders --where 'public.orders=id > 1000'\n"
                        + "pgrepl snapshot pause postgresql://app@db/app --slot app_slot");
    }

    @Override
    public int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        if (args.length < 1) throw new UsageException("missing request, stop, pause or resume");
        SnapshotSignal.Type type = switch (args[0]) {
            case "request" -> SnapshotSignal.Type.EXECUTE;
            case "stop" -> SnapshotSignal.Type.STOP;
            case "pause" -> SnapshotSignal.Type.PAUSE;
            case "resume" -> SnapshotSignal.Type.RESUME;
            default -> throw new UsageException("unknown snapshot command " + CliErrors.shown(args[0])
                    + "; use request, stop, pause or resume");
        };
        Opts.Parsed p = Opts.parse(OPTIONS, java.util.Arrays.copyOfRange(args, 1, args.length));
        if (p.positional.isEmpty()) throw new UsageException("missing URL");
        String url = p.positional.get(0);
        List<String> tables = p.positional.subList(1, p.positional.size());
        String signalTable = p.get("signal-table");
        String slot = p.get("slot");
        if (slot == null && signalTable == null) throw new UsageException("--slot is required (or --signal-table)");
        if (slot != null) {
            try {
                Identifiers.requireSlotName(slot);
            } catch (IllegalArgumentException e) {
                throw new UsageException("--slot: " + e.getMessage());
            }
        }
        if (signalTable != null) {
            try {
                Identifiers.quoteQualifiedName(signalTable);
            } catch (IllegalArgumentException e) {
                throw new UsageException("--signal-table: " + e.getMessage());
            }
        }
        if (type == SnapshotSignal.Type.EXECUTE && tables.isEmpty()) throw new UsageException("missing TABLE to snapshot");
        if ((type == SnapshotSignal.Type.PAUSE || type == SnapshotSignal.Type.RESUME) && !tables.isEmpty()) {
            throw new UsageException(args[0] + " applies to the whole snapshot and takes no TABLE");
        }
        if (type != SnapshotSignal.Type.EXECUTE && (p.has("where") || p.has("surrogate-key"))) {
            throw new UsageException("--where and --surrogate-key go with request only");
        }
        Map<String, String> conditions = new LinkedHashMap<>();
        for (String w : p.all("where")) {
            int eq = w.indexOf('=');
            if (eq <= 0 || eq == w.length() - 1) throw new UsageException("--where takes schema.table=condition, got " + CliErrors.shown(w));
            String table = w.substring(0, eq).trim();
            if (!tables.contains(table)) throw new UsageException("--where names " + CliErrors.shown(table) + ", which is not a TABLE to snapshot");
            if (conditions.put(table, w.substring(eq + 1)) != null) throw new UsageException("--where given twice for " + CliErrors.shown(table));
        }
        String id = p.has("id") ? p.get("id") : UUID.randomUUID().toString();
        SnapshotSignal signal = new SnapshotSignal(type, tables, conditions, "incremental", id, signalTable == null ? slot : null,
                p.get("surrogate-key"));
        String message = SnapshotSignals.toMessageJson(signal);
        try {
            // What a stream will read must read back as sent: conditions are checked here, before anything is written.
            SnapshotSignals.parseMessage(message);
        } catch (MalformedSignalException e) {
            throw new UsageException(e.getMessage());
        }
        ConnectionConfig cfg = IdentifyCommand.parse(url).toBuilder().replication(ReplicationMode.NONE).build();
        try (PgConnection c = await(PgConnection.connect(cfg))) {
            if (signalTable != null) {
                String data = SnapshotSignals.toDataJson(signal);
                await(c.query("INSERT INTO " + Identifiers.quoteQualifiedName(signalTable) + " (id, type, data) VALUES ("
                        + Identifiers.quoteLiteral(id) + ", " + Identifiers.quoteLiteral(type.signalName()) + ", "
                        + Identifiers.quoteLiteral(data) + ")"));
                out.println("{\"sent\":\"signal-table\",\"table\":" + Json.write(signalTable) + ",\"id\":" + Json.write(id)
                        + ",\"type\":" + Json.write(type.signalName()) + ",\"data\":" + data + "}");
                return 0;
            }
            if (c.serverMajor() < 14) {
                throw new UsageException("PostgreSQL " + c.serverMajor() + " cannot pass logical messages to a pgoutput stream"
                        + " (14+ can): insert the signal into a signal table the stream's publication covers, with --signal-table schema.table");
            }
            String lsn = await(c.query("SELECT pg_catalog.pg_logical_emit_message(true, "
                    + Identifiers.quoteLiteral(SnapshotSignals.MESSAGE_PREFIX) + ", " + Identifiers.quoteLiteral(message) + ")"))
                    .singleRow().get(0);
            out.println("{\"sent\":\"logical-message\",\"prefix\":" + Json.write(SnapshotSignals.MESSAGE_PREFIX) + ",\"lsn\":"
                    + Json.write(lsn) + ",\"signal\":" + message + "}");
        }
        return 0;
    }
}
