package io.pgrepl.client.replication;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgClientException;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creating a logical slot on a hot standby (PostgreSQL 16+) without waiting on the primary.
 *
 * <p>On a standby, CREATE_REPLICATION_SLOT cannot build its initial snapshot from the standby's
 * own transactions: it waits until it replays a running-transactions record ({@code xl_running_xacts})
 * logged by the primary after the slot reserved its WAL. The primary logs one at checkpoints and,
 * from the background writer, every 15 seconds, but only if WAL was written meanwhile: against an
 * idle primary the command can wait indefinitely. {@link #create} asks the primary to log one
 * now ({@code pg_log_standby_snapshot()}, superuser or an explicit EXECUTE grant), repeatedly until
 * the slot exists, since a record logged before the standby began waiting does not count.
 *
 * <p>Only with the caller's consent (it hands over a primary connection configuration): the
 * function writes a small WAL record on the primary. The standby needs {@code hot_standby_feedback=on}
 * and a physical slot on the primary ({@code primary_slot_name}), or the primary may remove catalog
 * rows the new slot needs and the standby invalidates it ({@code rows_removed}).
 */
public final class StandbySlots {
    private static final Logger log = LoggerFactory.getLogger(StandbySlots.class);
    /** How often the primary is asked again while the standby waits. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofMillis(200);

    private StandbySlots() {}

    /**
     * As {@link #create(PgConnection, CreateSlotOptions, ConnectionConfig, Duration)} with {@link #DEFAULT_INTERVAL}.
     *
     * @param standby an open {@code replication=database} connection to the standby (or any server)
     * @param options the slot to create
     * @param primary where {@code pg_log_standby_snapshot()} may be called; its replication mode is ignored
     * @return the created slot
     */
    public static CompletionStage<SlotCreated> create(PgConnection standby, CreateSlotOptions options, ConnectionConfig primary) {
        return create(standby, options, primary, DEFAULT_INTERVAL);
    }

    /**
     * Creates the slot; when {@code standby} is in recovery and the slot is logical, asks the
     * primary every {@code interval} to log a running-transactions record until the slot exists.
     * On a primary it is a plain CREATE_REPLICATION_SLOT. If the primary cannot be reached or
     * refuses the function (42501 without the grant), a warning is logged and the command waits
     * for the primary's own records, as without this helper.
     *
     * @param standby  an open {@code replication=database} connection
     * @param options  the slot to create
     * @param primary  where {@code pg_log_standby_snapshot()} may be called
     * @param interval how often to ask again
     * @return the created slot; fails as CREATE_REPLICATION_SLOT does, or with
     *         {@link PgClientException.Kind#UNSUPPORTED_BY_SERVER} for a logical slot on a standby before 16
     */
    public static CompletionStage<SlotCreated> create(PgConnection standby, CreateSlotOptions options, ConnectionConfig primary,
                                                      Duration interval) {
        Objects.requireNonNull(primary, "primary");
        if (interval.isNegative() || interval.isZero()) throw new IllegalArgumentException("interval must be positive");
        if (!options.logical()) return standby.createReplicationSlot(options);
        return standby.query("SELECT pg_catalog.pg_is_in_recovery()").thenCompose(r -> {
            if (!"t".equals(r.singleRow().get(0))) return standby.createReplicationSlot(options);
            if (standby.serverMajor() < 16) {
                return CompletableFuture.failedFuture(new PgClientException(PgClientException.Kind.UNSUPPORTED_BY_SERVER,
                        "logical replication slots can be created on a standby from PostgreSQL 16; this standby runs "
                                + standby.serverMajor()));
            }
            CompletableFuture<SlotCreated> created = standby.createReplicationSlot(options).toCompletableFuture();
            PgConnection.connect(primary.toBuilder().replication(ReplicationMode.NONE).build()).whenComplete((p, e) -> {
                if (e != null) {
                    log.warn("cannot reach the primary to log a standby snapshot ({}); slot {} waits for the primary's"
                            + " next running-transactions record", e.toString(), options.slotName());
                    return;
                }
                created.whenComplete((s, x) -> p.close());
                ping(p, created, options.slotName(), interval);
            });
            return created;
        });
    }

    private static void ping(PgConnection primary, CompletableFuture<SlotCreated> created, String slot, Duration interval) {
        if (created.isDone()) return;
        primary.query("SELECT pg_catalog.pg_log_standby_snapshot()").whenComplete((r, e) -> {
            if (e != null) {
                if (!created.isDone()) {
                    log.warn("pg_log_standby_snapshot() on the primary failed ({}); slot {} waits for the primary's"
                            + " next running-transactions record", e.toString(), slot);
                }
                return;
            }
            CompletableFuture.delayedExecutor(interval.toMillis(), TimeUnit.MILLISECONDS)
                    .execute(() -> ping(primary, created, slot, interval));
        });
    }
}
