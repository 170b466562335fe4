package io.pgrepl.testkit;

import io.pgrepl.testkit.docker.DockerPgServers;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * A real PostgreSQL server for tests, on 127.0.0.1 and a random free port, with
 * {@code wal_level=logical}. {@link #close()} stops it and deletes its files.
 */
public interface PgServer extends AutoCloseable {

    static PgServerSpec.Builder builder() {
        return new PgServerSpec.Builder();
    }

    /** Starts a server of the spec's backend. */
    static PgServer start(PgServerSpec spec) {
        return switch (spec.backend()) {
            case EMBEDDED -> EmbeddedPgServer.start(spec);
            // A separate class so Testcontainers is loaded only when Docker is asked for.
            case DOCKER -> DockerPgServers.start(spec);
        };
    }

    PgServerSpec spec();

    /** Always {@code 127.0.0.1} for embedded servers. */
    String host();

    int port();

    int majorVersion();

    /** The server's {@code server_version}, e.g. {@code 18.1} or {@code 10.23}. */
    String version();

    default AuthMethod authMethod() {
        return spec().auth();
    }

    /** {@code postgres}, superuser. */
    default PgUser superuser() {
        return spec().superuser();
    }

    /** {@code repl_user}: LOGIN REPLICATION, not superuser. */
    default PgUser replicationUser() {
        return spec().replicationUser();
    }

    /** {@code plain_user}: LOGIN only, no REPLICATION. */
    default PgUser plainUser() {
        return spec().plainUser();
    }

    /** {@code postgresql://user:password@host:port/database}, user and password percent-encoded. */
    default String url(PgUser user, String database) {
        return "postgresql://" + UrlParts.encode(user.name()) + ":" + UrlParts.encode(user.password()) + "@"
                + host() + ":" + port() + "/" + UrlParts.encode(database);
    }

    Optional<ServerTls> tls();

    /** Settings written to the server's configuration: the kit's defaults, the spec's and reloads. */
    Map<String, String> settings();

    boolean isRunning();

    void stop(StopMode mode);

    /** Starts a stopped server again, same port and data. */
    void start();

    /** Fast stop, then start. */
    void restart();

    /**
     * Adds or replaces settings in the server's configuration and signals a reload; returns once
     * the server has logged the reload. Settings that need a restart only apply after {@link #restart()}.
     */
    void reload(Map<String, String> newSettings);

    Path logFile();

    /**
     * Sends {@code signal} to process {@code pid}, which must be one of this server's processes
     * (a backend or walsender pid from pg_stat_activity / pg_replication_slots.active_pid).
     */
    default void signal(long pid, ServerSignal signal) {
        throw new UnsupportedOperationException("signals are not supported by " + getClass().getSimpleName());
    }

    /**
     * Fast stop, then start again as a standby with no primary (standby.signal on 12+,
     * recovery.conf with standby_mode on 10/11): it accepts read-only connections and waits for
     * WAL that never comes, until {@link #promote()}.
     */
    default void restartAsStandby() {
        throw new UnsupportedOperationException("standby mode is not supported by " + getClass().getSimpleName());
    }

    /** Promotes a standby ({@code pg_ctl promote}, waiting until it accepts writes): a new timeline begins. */
    default void promote() {
        throw new UnsupportedOperationException("promotion is not supported by " + getClass().getSimpleName());
    }

    /**
     * Starts a physical standby of this server (PostgreSQL 12+): this server stops for a moment
     * while its data directory is copied, then runs on as the primary. The standby streams
     * through the physical slot {@code physicalSlot} (created here) with
     * {@code hot_standby_feedback=on}; on 17+ it also synchronises failover slots
     * ({@code sync_replication_slots=on}, {@code dbname} in {@code primary_conninfo}) and this
     * server gets {@code synchronized_standby_slots = physicalSlot}. Close it like any server.
     */
    default PgServer startStandby(String physicalSlot) {
        throw new UnsupportedOperationException("standbys are not supported by " + getClass().getSimpleName());
    }

    Path dataDir();

    /** Runs SQL as the superuser through the {@link SqlExecutor} found on the classpath. */
    default void sql(String database, String sql) throws Exception {
        SqlExecutors.find().execute(this, database, sql);
    }

    /**
     * Drops the replication slot {@code slot} once no process holds it. A walsender whose client
     * stopped streaming or went away lets go of its slot only when it gets there, on a loaded machine
     * seconds later, and {@code pg_drop_replication_slot} refuses a slot in use (55006: "is active for
     * PID"). Polls {@code pg_replication_slots.active_pid} (DROP_REPLICATION_SLOT ... WAIT would need
     * 13+) for up to {@link Waits#CEILING}; then fails naming the process that holds it.
     */
    default void dropReplicationSlot(String slot) throws Exception {
        SlotDrops.drop(this, slot, false);
    }

    /** {@link #dropReplicationSlot(String)}, nothing if there is no such slot. */
    default void dropReplicationSlotIfExists(String slot) throws Exception {
        SlotDrops.drop(this, slot, true);
    }

    /** Stops the server (fast, then immediate if that hangs) and deletes its files. Idempotent. */
    @Override
    void close();
}
