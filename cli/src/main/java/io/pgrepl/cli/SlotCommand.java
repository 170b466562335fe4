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
    private static final String USAGE = "usage: pgrepl slot create URL NAME (--logical PLUGIN | --physical) [--temporary]"
            + " [--snapshot export|use|nothing] [--two-phase] [--failover] [--reserve-wal]\n"
            + "       pgrepl slot drop URL NAME [--wait]\n"
            + "       pgrepl slot list URL";

    @Override
    public String summary() {
        return "create, drop or list replication slots (JSON output)";
    }

    @Override
    public int run(String[] args, PrintStream out, PrintStream err) throws Exception {
        if (args.length < 2) throw new UsageException(USAGE);
        return switch (args[0]) {
            case "create" -> create(args, out);
            case "drop" -> drop(args, out);
            case "list" -> list(args, out);
            default -> throw new UsageException(USAGE);
        };
    }

    private int create(String[] args, PrintStream out) throws Exception {
        if (args.length < 3) throw new UsageException(USAGE);
        String name = args[2];
        String plugin = null;
        boolean physical = false;
        boolean temporary = false;
        boolean twoPhase = false;
        boolean failover = false;
        boolean reserveWal = false;
        SnapshotMode snapshot = null;
        for (int i = 3; i < args.length; i++) {
            switch (args[i]) {
                case "--logical" -> plugin = value(args, ++i, "--logical");
                case "--physical" -> physical = true;
                case "--temporary" -> temporary = true;
                case "--two-phase" -> twoPhase = true;
                case "--failover" -> failover = true;
                case "--reserve-wal" -> reserveWal = true;
                case "--snapshot" -> {
                    String v = value(args, ++i, "--snapshot");
                    try {
                        snapshot = SnapshotMode.valueOf(v.toUpperCase(Locale.ROOT));
                    } catch (IllegalArgumentException e) {
                        throw new UsageException("--snapshot takes export, use or nothing, not " + CliErrors.shown(v));
                    }
                }
                default -> throw new UsageException("unknown option " + CliErrors.shown(args[i]) + "\n" + USAGE);
            }
        }
        if ((plugin == null) == !physical) throw new UsageException("give exactly one of --logical PLUGIN and --physical");
        CreateSlotOptions o;
        try {
            o = physical ? CreateSlotOptions.physical(name).withReserveWal(reserveWal)
                    : CreateSlotOptions.logical(name, plugin).withTemporary(temporary).withSnapshot(snapshot)
                            .withTwoPhase(twoPhase).withFailover(failover);
            if (physical) o = o.withTemporary(temporary);
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        ConnectionConfig cfg = IdentifyCommand.parse(args[1]).toBuilder()
                .replication(physical ? ReplicationMode.PHYSICAL : ReplicationMode.DATABASE).build();
        try (PgConnection c = await(PgConnection.connect(cfg))) {
            SlotCreated s = await(c.createReplicationSlot(o));
            out.println(Json.object()
                    .put("slot_name", s.slotName())
                    .put("consistent_point", Lsn.format(s.consistentPoint()))
                    .put("snapshot_name", s.snapshotName())
                    .put("output_plugin", s.outputPlugin()));
        }
        return 0;
    }

    private int drop(String[] args, PrintStream out) throws Exception {
        if (args.length < 3 || args.length > 4 || (args.length == 4 && !args[3].equals("--wait"))) throw new UsageException(USAGE);
        boolean wait = args.length == 4;
        ConnectionConfig cfg = IdentifyCommand.replicationConfig(args[1]);
        try (PgConnection c = await(PgConnection.connect(cfg))) {
            await(c.dropReplicationSlot(args[2], wait));
            out.println(Json.object().put("dropped", args[2]));
        }
        return 0;
    }

    private int list(String[] args, PrintStream out) throws Exception {
        if (args.length != 2) throw new UsageException(USAGE);
        // A plain SQL session: physical walsenders cannot run SQL.
        ConnectionConfig cfg = IdentifyCommand.parse(args[1]).toBuilder().replication(ReplicationMode.NONE).build();
        try (PgConnection c = await(PgConnection.connect(cfg))) {
            QueryResult r = await(c.query("SELECT slot_name, slot_type, plugin, database, temporary, active, active_pid,"
                    + " restart_lsn, confirmed_flush_lsn FROM pg_catalog.pg_replication_slots ORDER BY slot_name"));
            List<Object> slots = new ArrayList<>();
            for (Row row : r.rows()) {
                slots.add(Json.object()
                        .put("slot_name", row.get("slot_name"))
                        .put("slot_type", row.get("slot_type"))
                        .put("plugin", row.get("plugin"))
                        .put("database", row.get("database"))
                        .put("temporary", bool(row.get("temporary")))
                        .put("active", bool(row.get("active")))
                        .put("active_pid", row.get("active_pid") == null ? null : Integer.valueOf(row.get("active_pid")))
                        .put("restart_lsn", row.get("restart_lsn"))
                        .put("confirmed_flush_lsn", row.get("confirmed_flush_lsn")));
            }
            out.println(Json.write(slots));
        }
        return 0;
    }

    private static Boolean bool(String pgText) {
        return pgText == null ? null : pgText.equals("t");
    }

    private static String value(String[] args, int i, String option) throws UsageException {
        if (i >= args.length) throw new UsageException(option + " needs a value");
        return args[i];
    }
}
