package io.pgrepl.cli;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.replication.SlotCreated;
import io.pgrepl.client.replication.StandbySlots;
import java.io.PrintStream;
import java.util.List;

/**
 * Creating a logical slot on a hot standby (16+) from {@code slot create} and {@code stream
 * --create-slot}: the standby finishes CREATE_REPLICATION_SLOT only after it replays a
 * running-transactions record from the primary, which an idle primary may never write. With
 * {@code --primary URL --log-standby-snapshot} the user allows {@link StandbySlots} to ask the
 * primary for one ({@code pg_log_standby_snapshot()} writes a small WAL record there, so it is an
 * explicit opt-in, never implied by naming the primary).
 */
final class StandbySlot {
    static final List<Opts.Spec> SPECS = List.of(
            Opts.Spec.value("primary", "URL", "with --log-standby-snapshot: the primary of the standby the slot is created on", null),
            Opts.Spec.flag("log-standby-snapshot", "creating a logical slot on a standby (PG 16+): ask the --primary to log a"
                    + " standby snapshot (pg_log_standby_snapshot(): a small WAL record; superuser or EXECUTE grant) until the"
                    + " slot exists, instead of waiting for the primary to log one itself"));

    private StandbySlot() {}

    /** The primary the user allowed to be asked, or null; both options or neither. */
    static ConnectionConfig primary(Opts.Parsed p) throws UsageException {
        boolean log = p.has("log-standby-snapshot");
        if (log && !p.has("primary")) throw new UsageException("--log-standby-snapshot needs --primary URL (the standby's primary)");
        if (!p.has("primary")) return null;
        if (!log) {
            throw new UsageException("--primary is only used to log a standby snapshot there: add --log-standby-snapshot to allow it");
        }
        return OAuthTokens.apply(IdentifyCommand.parse(p.get("primary")), p).toBuilder().replication(ReplicationMode.NONE).build();
    }

    /**
     * Creates the slot: through {@link StandbySlots} when a primary was given, else plainly, with
     * a note on stderr when a logical slot is being created on a standby (the command may wait).
     */
    static SlotCreated create(PgConnection c, CreateSlotOptions o, ConnectionConfig primary, PrintStream err) throws Exception {
        if (primary != null) return IdentifyCommand.await(StandbySlots.create(c, o, primary));
        if (o.logical() && "t".equals(IdentifyCommand.await(c.query("SELECT pg_catalog.pg_is_in_recovery()")).singleRow().get(0))) {
            err.println("pgrepl: this server is a standby: slot " + o.slotName() + " is created when it replays the primary's next"
                    + " running-transactions record (an idle primary may not log one); --primary URL --log-standby-snapshot asks for it");
        }
        return IdentifyCommand.await(c.createReplicationSlot(o));
    }
}
