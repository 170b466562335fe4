package io.pgrepl.client;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.pgrepl.client.internal.Transports;
import java.util.Objects;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * Owner (or borrower) of the event loops connections run on. Connections opened through one
 * client share its threads (epoll where available, NIO otherwise). {@link PgConnection#connect}
 * without a client uses a small process-wide group of daemon threads instead.
 */
public final class PgClient implements AutoCloseable {
    private final EventLoopGroup group;
    private final boolean owned;

    private PgClient(EventLoopGroup group, boolean owned) {
        this.group = group;
        this.owned = owned;
    }

    /**
     * A client with its own group of {@code min(2, cores)} threads, shut down by {@link #close()}.
     *
     * @return the client
     */
    public static PgClient create() {
        return create(Math.min(2, Runtime.getRuntime().availableProcessors()));
    }

    /**
     * A client with its own group of {@code threads} event loop threads, shut down by {@link #close()}.
     *
     * @param threads the number of threads; each connection runs on one of them
     * @return the client
     */
    public static PgClient create(int threads) {
        return new PgClient(Transports.newGroup(threads, "pgrepl-client"), true);
    }

    /**
     * Borrows the caller's group (e.g. an application's existing Netty group); {@link #close()} leaves it running.
     *
     * @param group the group to run connections on; the caller shuts it down
     * @return the client
     */
    public static PgClient using(EventLoopGroup group) {
        return new PgClient(Objects.requireNonNull(group, "group"), false);
    }

    /** {@return the event loop group the connections run on} */
    public EventLoopGroup eventLoopGroup() {
        return group;
    }

    /**
     * Connects on this client's group (overriding any group named in the config).
     *
     * @param config where and how to connect
     * @return the connection once authenticated and ready for queries; fails with {@link PgException} when the server refuses,
     *         else with the client-side error (I/O, TLS, authentication)
     */
    public CompletionStage<PgConnection> connect(ConnectionConfig config) {
        return PgConnection.connect(config.toBuilder().eventLoopGroup(group).build());
    }

    /**
     * Connects to what a libpq URI or key=value string names, as {@link ConnectionConfig#parse(String)} reads it.
     *
     * @param urlOrConninfo a {@code postgresql://} URI or key=value pairs
     * @return the connection once authenticated and ready for queries
     * @throws IllegalArgumentException if the string is malformed
     */
    public CompletionStage<PgConnection> connect(String urlOrConninfo) {
        return connect(ConnectionConfig.parse(urlOrConninfo));
    }

    /**
     * Shuts an owned group down (open connections are closed with it); a borrowed one is left alone.
     * Waits for the threads to stop, except when called on one of those threads (say, from a
     * connection callback): a thread cannot wait for its own termination, so there the shutdown is
     * only started and this returns at once; the loops stop once the current task returns.
     */
    @Override
    public void close() {
        if (!owned) {
            return;
        }
        Future<?> terminated = group.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        if (!onOwnThread()) {
            terminated.syncUninterruptibly();
        }
    }

    private boolean onOwnThread() {
        for (EventExecutor e : group) {
            if (e.inEventLoop()) {
                return true;
            }
        }
        return false;
    }
}
