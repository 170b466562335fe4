package io.pgrepl.client;

import io.pgrepl.client.config.HostSpec;
import io.pgrepl.client.config.LoadBalanceHosts;
import io.pgrepl.client.config.TargetSessionAttrs;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * libpq's multi-host connection: each server in turn (shuffled with {@code load_balance_hosts=random}),
 * each with its own connect timeout; a server whose session does not match
 * {@code target_session_attrs} is closed and the next is tried. {@code prefer-standby} makes two
 * passes: standbys only, then any server. When no server fits, the error names each one's failure.
 *
 * <p>The check follows libpq: PostgreSQL 14+ reports {@code in_hot_standby} and
 * {@code default_transaction_read_only} at startup, so no query is needed; older servers are asked
 * {@code SHOW transaction_read_only} (read-write, read-only) or {@code SELECT pg_is_in_recovery()}
 * (primary, standby). A physical replication connection takes no SQL, only SHOW: there a pre-14
 * server's recovery state is read from {@code transaction_read_only}, which recovery forces on.
 */
final class HostSelection {
    private HostSelection() {}

    static CompletableFuture<PgConnection> connect(ConnectionConfig cfg, Function<HostSpec, CompletableFuture<PgConnection>> one,
                                                   Random random) {
        List<HostSpec> hosts = order(cfg.hosts(), cfg.loadBalanceHosts(), random);
        TargetSessionAttrs wanted = cfg.targetSessionAttrs();
        List<TargetSessionAttrs> passes = wanted == TargetSessionAttrs.PREFER_STANDBY
                ? List.of(TargetSessionAttrs.STANDBY, TargetSessionAttrs.ANY) : List.of(wanted);
        CompletableFuture<PgConnection> result = new CompletableFuture<>();
        next(hosts, passes, 0, 0, one, new ArrayList<>(), result);
        return result;
    }

    /** The order to try: as given, or shuffled once per connection attempt. */
    static List<HostSpec> order(List<HostSpec> hosts, LoadBalanceHosts mode, Random random) {
        if (mode == LoadBalanceHosts.DISABLE || hosts.size() < 2) return hosts;
        List<HostSpec> shuffled = new ArrayList<>(hosts);
        Collections.shuffle(shuffled, random);
        return shuffled;
    }

    private record Failure(HostSpec host, Throwable error, boolean mayChange) {}

    private static void next(List<HostSpec> hosts, List<TargetSessionAttrs> passes, int pass, int index,
                             Function<HostSpec, CompletableFuture<PgConnection>> one, List<Failure> failures,
                             CompletableFuture<PgConnection> result) {
        if (index == hosts.size()) {
            if (pass + 1 < passes.size()) {
                next(hosts, passes, pass + 1, 0, one, failures, result);
            } else {
                result.completeExceptionally(failure(failures, hosts.size()));
            }
            return;
        }
        HostSpec host = hosts.get(index);
        TargetSessionAttrs wanted = passes.get(pass);
        CompletableFuture<PgConnection> attempt;
        try {
            attempt = one.apply(host);
        } catch (RuntimeException e) {
            attempt = CompletableFuture.failedFuture(e);
        }
        attempt.whenComplete((conn, err) -> {
            if (err != null) {
                Throwable cause = unwrap(err);
                failures.add(new Failure(host, cause, isTransient(cause)));
                next(hosts, passes, pass, index + 1, one, failures, result);
                return;
            }
            mismatch(conn, wanted).whenComplete((reason, checkErr) -> {
                if (checkErr == null && reason == null) {
                    if (!result.complete(conn)) conn.close();
                    return;
                }
                conn.close();
                Throwable why = checkErr != null ? unwrap(checkErr)
                        : new PgClientException(PgClientException.Kind.CONNECTION, reason);
                // A standby that is not (yet) promoted, or a primary that is not (yet) a standby, may change.
                failures.add(new Failure(host, why, true));
                next(hosts, passes, pass, index + 1, one, failures, result);
            });
        });
    }

    /**
     * Null when the session fits, else libpq's reason. PostgreSQL 14+ reports both settings at
     * startup; a server that changes state later is not rechecked (nor is it by libpq).
     */
    static CompletionStage<String> mismatch(PgConnection conn, TargetSessionAttrs wanted) {
        var p = conn.parameters();
        String hotStandby = p.get("in_hot_standby");
        String defaultReadOnly = p.get("default_transaction_read_only");
        switch (wanted) {
            case ANY:
                return CompletableFuture.completedFuture(null);
            case READ_WRITE:
            case READ_ONLY: {
                CompletionStage<Boolean> readOnly = hotStandby != null && defaultReadOnly != null
                        ? CompletableFuture.completedFuture(on(hotStandby) || on(defaultReadOnly))
                        : conn.show("transaction_read_only").thenApply(HostSelection::on);
                return readOnly.thenApply(ro -> wanted == TargetSessionAttrs.READ_WRITE
                        ? (ro ? "session is read-only" : null)
                        : (ro ? null : "session is not read-only"));
            }
            default: {
                CompletionStage<Boolean> standby = hotStandby != null
                        ? CompletableFuture.completedFuture(on(hotStandby))
                        : conn.config().replication() == ReplicationMode.PHYSICAL
                                ? conn.show("transaction_read_only").thenApply(HostSelection::on)
                                : conn.query("SELECT pg_catalog.pg_is_in_recovery()")
                                        .thenApply(r -> "t".equals(r.singleRow().get(0)));
                return standby.thenApply(s -> wanted == TargetSessionAttrs.PRIMARY
                        ? (s ? "server is in hot standby mode" : null)
                        : (s ? null : "server is not in hot standby mode"));
            }
        }
    }

    private static boolean on(String v) {
        return "on".equals(v);
    }

    /**
     * One line per server, as libpq lists them. Transient (a connection kind, so callers that
     * reconnect keep trying) when some server might still come up or change role; otherwise the
     * last server's own error, typed as it was, with the others suppressed.
     */
    private static RuntimeException failure(List<Failure> failures, int hostCount) {
        StringBuilder msg = new StringBuilder("could not connect to any of the " + hostCount
                + " hosts with the wanted session attributes:");
        boolean mayChange = false;
        boolean hint = false;
        for (Failure f : failures) {
            String why = describe(f.error());
            // libpq's hint once, after the list, rather than after each refused server
            hint |= why.endsWith("\n" + ConnectFailures.HINT);
            msg.append("\n  ").append(f.host()).append(": ").append(why.replace("\n" + ConnectFailures.HINT, ""));
            mayChange |= f.mayChange();
        }
        if (hint) msg.append('\n').append(ConnectFailures.HINT);
        Throwable last = failures.get(failures.size() - 1).error();
        if (mayChange || !(last instanceof RuntimeException)) {
            return new PgClientException(PgClientException.Kind.CONNECTION, msg.toString(), last);
        }
        for (Failure f : failures) {
            if (f.error() != last) last.addSuppressed(f.error());
        }
        return (RuntimeException) last;
    }

    private static String describe(Throwable t) {
        if (t instanceof PgException pe) return pe.severity() + " " + pe.sqlState() + ": " + pe.serverMessage();
        return t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
    }

    private static boolean isTransient(Throwable t) {
        return t instanceof PgClientException ce
                && (ce.kind() == PgClientException.Kind.CONNECTION || ce.kind() == PgClientException.Kind.TIMEOUT)
                || t instanceof PgException pe && pe.sqlState() != null
                        && (pe.sqlState().startsWith("57P") || pe.sqlState().equals("53300"));
    }

    private static Throwable unwrap(Throwable t) {
        return t instanceof CompletionException && t.getCause() != null ? t.getCause() : t;
    }
}
