package io.pgrepl.it.ha;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.config.HostSpec;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.client.stream.LogicalStreamHandler;
import io.pgrepl.client.stream.ReconnectingLogicalStream;
import io.pgrepl.codec.pgoutput.CommitMessage;
import io.pgrepl.codec.pgoutput.InsertMessage;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.PgVersions;
import io.pgrepl.testkit.Waits;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

/** Helpers for the high-availability tests (test thread only, except {@link Recorder}). */
final class HaSupport {
    private HaSupport() {}

    /** Majors of {@code wanted} that -Dpg.versions lets run. */
    static List<Integer> majors(Integer... wanted) {
        return List.of(wanted).stream().filter(PgVersions.matrix()::contains).toList();
    }

    static <T> T await(CompletionStage<T> stage) throws Exception {
        try {
            return stage.toCompletableFuture().get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception ex) throw ex;
            throw e;
        }
    }

    static Throwable failure(CompletionStage<?> stage, Duration wait) throws Exception {
        try {
            stage.toCompletableFuture().get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            return e.getCause();
        }
        throw new AssertionError("expected the stage to fail");
    }

    /** A port nothing listens on: bound once to learn a free number, then released. */
    static int deadPort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return s.getLocalPort();
        }
    }

    static ConnectionConfig.Builder superuser(PgServer s) {
        return ConnectionConfig.builder().host(s.host()).port(s.port()).user(s.superuser().name())
                .password(s.superuser().password()).database("postgres").sslMode(SslMode.DISABLE)
                .connectTimeout(Duration.ofSeconds(5));
    }

    /** One config naming every server, in order. */
    static ConnectionConfig.Builder multiHost(PgServer credentials, List<HostSpec> hosts) {
        return superuser(credentials).hosts(hosts);
    }

    static HostSpec host(PgServer s) {
        return new HostSpec(s.host(), null, s.port());
    }

    static PgConnection sql(PgServer s) throws Exception {
        return await(PgConnection.connect(superuser(s).build()));
    }

    static PgConnection replication(PgServer s) throws Exception {
        return await(PgConnection.connect(superuser(s).replication(ReplicationMode.DATABASE).build()));
    }

    static String scalar(PgServer s, String query) throws Exception {
        try (PgConnection c = sql(s)) {
            return await(c.query(query)).singleRow().get(0);
        }
    }

    static void waitUntil(String what, Duration timeout, BooleanSupplier cond) throws InterruptedException {
        // Returns as soon as cond holds: the shared ceiling costs nothing unless the machine is loaded.
        long deadline = System.nanoTime() + Waits.atLeastCeiling(timeout).toNanos();
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("timed out waiting for " + what);
            Thread.sleep(50);
        }
    }

    /** Like {@link #waitUntil}, failing at once (with its cause) when the stream ends instead. */
    static void waitStreaming(ReconnectingLogicalStream r, String what, Duration timeout, BooleanSupplier cond) throws Exception {
        waitUntil(what, timeout, () -> {
            if (r.completion().toCompletableFuture().isCompletedExceptionally()) {
                throw new AssertionError("the stream ended while waiting for " + what,
                        failureNow(r.completion()));
            }
            return cond.getAsBoolean();
        });
    }

    private static Throwable failureNow(CompletionStage<?> stage) {
        try {
            stage.toCompletableFuture().getNow(null);
            return null;
        } catch (java.util.concurrent.CompletionException e) {
            return e.getCause();
        }
    }

    /**
     * Records inserted ids per committed transaction and acknowledges each commit once recorded,
     * so that only unacknowledged transactions may come again after a reconnect.
     */
    static final class Recorder implements LogicalStreamHandler {
        final Map<Integer, AtomicInteger> deliveries = new ConcurrentHashMap<>();
        final AtomicInteger commits = new AtomicInteger();
        final AtomicInteger starts = new AtomicInteger();
        volatile ReconnectingLogicalStream owner;
        volatile PgConnection lastConnection;
        /** Ids of the transaction being received; a transaction cut by a break is dropped at the next Begin. */
        private final List<Integer> open = java.util.Collections.synchronizedList(new ArrayList<>());

        @Override
        public void onBegin(io.pgrepl.codec.pgoutput.BeginMessage m) {
            open.clear();
        }

        @Override
        public void onStarted(LogicalReplicationStream s) {
            open.clear();
            starts.incrementAndGet();
            lastConnection = s.connection();
        }

        @Override
        public void onInsert(InsertMessage m) {
            open.add(Integer.parseInt(m.newTuple().text(0)));
        }

        @Override
        public void onCommit(CommitMessage m) {
            for (int id : List.copyOf(open)) deliveries.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet();
            open.clear();
            commits.incrementAndGet();
            owner.acknowledge(m.endLsn());
        }

        int distinct() {
            return deliveries.size();
        }

        long duplicated() {
            return deliveries.values().stream().filter(c -> c.get() > 1).count();
        }
    }
}
