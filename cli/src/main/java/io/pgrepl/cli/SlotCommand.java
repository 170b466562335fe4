package io.pgrepl.cli;

import static io.pgrepl.cli.IdentifyCommand.await;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.QueryResult;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.Row;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.replication.SlotCreated;
import io.pgrepl.client.replication.SnapshotMode;
import io.pgrepl.codec.Lsn;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** {@code pgrepl slot create|drop|list URL ...}: replication slots, JSON output. */
final class SlotCommand implements Main.Command {
    private static final String USAGE = "pgrepl slot create [URL] NAME (--logical PLUGIN | --physical) [options]\n"
            + "pgrepl slot drop [URL] NAME [--wait]\n"
            + "pgrepl slot list [URL] [--json | --table]";
    private static final List<Opts.Spec> CREATE = with(List.of(
            Opts.Spec.value("logical", "PLUGIN", "a logical slot with this output plugin (pgoutput)", null),
            Opts.Spec.flag("physical", "a physical slot"),
            Opts.Spec.flag("temporary", "dropped when the session ends (useless from the command line except for tests)"),
            Opts.Spec.value("snapshot", "export|use|nothing", "what to do with the slot's snapshot (logical); an exported"
                    + " snapshot ends with the command, so its name is not printed (stream --create-slot --snapshot copies the"
                    + " tables with it)", "server default"),
            Opts.Spec.flag("two-phase", "decode prepared transactions (PG 15+)"),
            Opts.Spec.flag("failover", "synchronise the slot to standbys (PG 17+)"),
            Opts.Spec.flag("reserve-wal", "reserve WAL at once (physical)"),
            Opts.Spec.flag("if-not-exists", "succeed without creating when the slot exists")), StandbySlot.SPECS);
    private static final List<Opts.Spec> DROP = with(List.of(Opts.Spec.flag("wait", "wait until the slot is not in use")));
    private static final List<Opts.Spec> LIST = with(List.of(
            Opts.Spec.flag("json", "JSON, every field (the default when stdout is not a terminal)"),
            Opts.Spec.flag("table", "an aligned table (the default on a terminal)")));
    private static final List<Opts.Spec> ALL = new ArrayList<>();

    static {
        ALL.addAll(CREATE);
        ALL.addAll(DROP.subList(0, 1));
        ALL.addAll(LIST.subList(0, 2));
    }

    /** A subcommand's own options, then {@code more}, then the OAuth token options every subcommand takes. */
    @SafeVarargs
    private static List<Opts.Spec> with(List<Opts.Spec> own, List<Opts.Spec>... more) {
        List<Opts.Spec> all = new ArrayList<>(own);
        for (List<Opts.Spec> m : more) all.addAll(m);
        all.addAll(OAuthTokens.SPECS);
        return List.copyOf(all);
    }

    @Override
    public String summary() {
        return "create, drop or list replication slots";
    }

    @Override
    public java.util.Map<String, List<Opts.Spec>> subcommands() {
        java.util.Map<String, List<Opts.Spec>> m = new java.util.LinkedHashMap<>();
        m.put("create", CREATE);
        m.put("drop", DROP);
        m.put("list", LIST);
        return m;
    }

    @Override
    public Opts.Help help() {
        return new Opts.Help(USAGE,
                "Creates or drops a replication slot, or lists slots with what operators check: active pid, lag in\n"
                        + "bytes behind the current WAL, wal_status and safe_wal_size (13+), invalidation_reason, failover\n"
                        + "and synced (17+). Without a URL the connection comes from the PG* environment. create and drop\n"
                        + "print JSON; list prints a table on a terminal and JSON otherwise (scripts keep working).\n"
                        + "On a hot standby (16+) a logical slot is created once the standby replays a running-transactions\n"
                        + "record from the primary; --primary URL --log-standby-snapshot lets pgrepl ask the primary for one.",
                ALL, "pgrepl slot create postgresql://repl@db/app app_slot --logical pgoutput --if-not-exists\n"
                        + "pgrepl slot create postgresql://repl@standby/app app_slot --logical pgoutput \\\n"
                        + "    --primary postgresql://admin@primary/app --log-standby-snapshot\n"
                        + "pgrepl slot list postgresql://repl@db/app");
    }

    @Override
    public int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        if (args.length < 1) throw new UsageException("missing create, drop or list");
        String[] rest = java.util.Arrays.copyOfRange(args, 1, args.length);
        return switch (args[0]) {
            case "create" -> create(Opts.parse(CREATE, rest), out, err);
            case "drop" -> drop(Opts.parse(DROP, rest), out);
            case "list" -> list(Opts.parse(LIST, rest), out);
            default -> {
                String best = io.pgrepl.client.config.ClosestName.of(args[0], subcommands().keySet(),
                        io.pgrepl.client.config.ClosestName.DEFAULT_LIMIT);
                throw new UsageException("unknown slot command " + CliErrors.shown(args[0])
                        + (best == null ? "; use create, drop or list" : " (did you mean " + best + "?)"));
            }
        };
    }

    /** [URL] NAME: with one positional argument the URL comes from the environment. */
    private static String[] urlAndName(Opts.Parsed p) throws UsageException {
        if (p.positional.size() == 2) return new String[] {p.positional.get(0), p.positional.get(1)};
        if (p.positional.size() == 1) return new String[] {"", p.positional.get(0)};
        throw new UsageException(p.positional.isEmpty() ? "missing slot NAME" : "too many arguments");
    }

    private int create(Opts.Parsed p, PrintStream out, PrintStream err) throws Exception {
        String[] un = urlAndName(p);
        String name = un[1];
        String plugin = p.get("logical");
        boolean physical = p.has("physical");
        boolean temporary = p.has("temporary");
        boolean twoPhase = p.has("two-phase");
        boolean failover = p.has("failover");
        boolean reserveWal = p.has("reserve-wal");
        SnapshotMode snapshot = null;
        if (p.has("snapshot")) {
            String v = p.get("snapshot");
            try {
                snapshot = SnapshotMode.valueOf(v.toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException e) {
                throw new UsageException("--snapshot takes export, use or nothing, not " + CliErrors.shown(v));
            }
        }
        // Checked here: the library's own refusal (a null plugin) says nothing a command-line user can act on.
        if (plugin == null && !physical) throw new UsageException("missing --logical PLUGIN or --physical (which kind of slot?)");
        if (plugin != null && physical) throw new UsageException("--logical and --physical exclude each other");
        CreateSlotOptions o;
        try {
            o = physical ? CreateSlotOptions.physical(name).withReserveWal(reserveWal)
                    : CreateSlotOptions.logical(name, plugin).withTemporary(temporary).withSnapshot(snapshot)
                            .withTwoPhase(twoPhase).withFailover(failover);
            if (physical) o = o.withTemporary(temporary);
        } catch (IllegalArgumentException e) {
            throw new UsageException(CliErrors.oneLine(e));
        }
        ConnectionConfig primary = StandbySlot.primary(p);
        if (primary != null && physical) throw new UsageException("--log-standby-snapshot is for logical slots");
        ConnectionConfig cfg = OAuthTokens.apply(IdentifyCommand.parse(un[0]), p).toBuilder()
                .replication(physical ? ReplicationMode.PHYSICAL : ReplicationMode.DATABASE).build();
        try (PgConnection c = await(PgConnection.connect(cfg))) {
            SlotCreated s;
            try {
                s = StandbySlot.create(c, o, primary, err);
            } catch (io.pgrepl.client.PgException e) {
                if (!p.has("if-not-exists") || !"42710".equals(e.sqlState())) throw e;
                out.println(Json.object().put("slot_name", name).put("exists", true));
                return 0;
            }
            // No snapshot_name: an exported snapshot lives only until this connection closes, which is
            // before anyone could read the name.
            out.println(Json.object()
                    .put("slot_name", s.slotName())
                    .put("consistent_point", Lsn.format(s.consistentPoint()))
                    .put("output_plugin", s.outputPlugin()));
            if (s.snapshotName() != null && snapshot == SnapshotMode.EXPORT) {
                err.println("pgrepl slot: the slot's exported snapshot ended with this command's connection, so it cannot be"
                        + " imported; to copy the tables as of the slot's start, use pgrepl stream --create-slot --snapshot");
            }
        }
        return 0;
    }

    private int drop(Opts.Parsed p, PrintStream out) throws Exception {
        String[] un = urlAndName(p);
        ConnectionConfig cfg = OAuthTokens.apply(IdentifyCommand.replicationConfig(un[0]), p);
        try (PgConnection c = await(PgConnection.connect(cfg))) {
            await(c.dropReplicationSlot(un[1], p.has("wait")));
            out.println(Json.object().put("dropped", un[1]));
        }
        return 0;
    }

    private int list(Opts.Parsed p, PrintStream out) throws Exception {
        if (p.positional.size() > 1) throw new UsageException("too many arguments");
        if (p.has("json") && p.has("table")) throw new UsageException("--json and --table exclude each other");
        boolean table = p.has("table") || !p.has("json") && Terminal.stdout(out);
        // A plain SQL session: physical walsenders cannot run SQL.
        ConnectionConfig cfg = OAuthTokens.apply(IdentifyCommand.parse(p.positional.isEmpty() ? "" : p.positional.get(0)), p)
                .toBuilder().replication(ReplicationMode.NONE).build();
        try (PgConnection c = await(PgConnection.connect(cfg))) {
            int major = c.serverMajor();
            // Lag: bytes of WAL the slot still holds back, from the current WAL position (the replay
            // position on a standby) to what the consumer confirmed (restart_lsn for physical slots).
            String current = "CASE WHEN pg_catalog.pg_is_in_recovery() THEN pg_catalog.pg_last_wal_replay_lsn()"
                    + " ELSE pg_catalog.pg_current_wal_lsn() END";
            QueryResult r = await(c.query("SELECT slot_name, slot_type, plugin, database, temporary, active, active_pid,"
                    + " restart_lsn, confirmed_flush_lsn, pg_catalog.pg_wal_lsn_diff(" + current
                    + ", coalesce(confirmed_flush_lsn, restart_lsn))::bigint AS lag_bytes"
                    + (major >= 13 ? ", wal_status, safe_wal_size" : "")
                    + (major >= 17 ? ", invalidation_reason, failover, synced" : "")
                    + " FROM pg_catalog.pg_replication_slots ORDER BY slot_name"));
            List<Json.Obj> slots = new ArrayList<>();
            for (Row row : r.rows()) {
                Json.Obj o = Json.object()
                        .put("slot_name", row.get("slot_name"))
                        .put("slot_type", row.get("slot_type"))
                        .put("plugin", row.get("plugin"))
                        .put("database", row.get("database"))
                        .put("temporary", bool(row.get("temporary")))
                        .put("active", bool(row.get("active")))
                        .put("active_pid", number(row.get("active_pid")))
                        .put("restart_lsn", row.get("restart_lsn"))
                        .put("confirmed_flush_lsn", row.get("confirmed_flush_lsn"))
                        .put("lag_bytes", number(row.get("lag_bytes")));
                if (major >= 13) {
                    o.put("wal_status", row.get("wal_status")).put("safe_wal_size", number(row.get("safe_wal_size")));
                }
                if (major >= 17) {
                    o.put("invalidation_reason", row.get("invalidation_reason"))
                            .put("failover", bool(row.get("failover"))).put("synced", bool(row.get("synced")));
                }
                slots.add(o);
            }
            if (table) SlotTable.print(slots, out);
            else out.println(Json.write(slots));
        }
        return 0;
    }

    private static Long number(String pgText) {
        return pgText == null ? null : Long.valueOf(pgText);
    }

    private static Boolean bool(String pgText) {
        return pgText == null ? null : pgText.equals("t");
    }
}
