package io.pgrepl.it.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.ReconnectPolicy;
import io.pgrepl.client.stream.ReconnectingLogicalStream;
import io.pgrepl.codec.Lsn;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.fault.FaultProxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * One run of the fault tests: a table with a server-side change history, a slot, the
 * {@link Workload} writing directly to the server, and a {@link ReconnectingLogicalStream} reading
 * through a {@link FaultProxy} as the SCRAM replication user, acknowledging with a lag. The test
 * strikes with faults while the workload runs; {@link #finish()} then proves the delivery rules
 * against the server's history.
 */
final class FaultScenario implements AutoCloseable {
    static final Duration RECEIVE_TIMEOUT = Duration.ofMillis(1500);
    private static final Duration WAIT = Duration.ofSeconds(90);
    /** How long a delivered commit stays unacknowledged: faults then find some in flight. */
    static final long ACK_LAG_MILLIS = 300;

    final PgServer server;
    final String table;
    final FaultProxy proxy;
    final Collector collector = new Collector();
    final Workload workload;
    final ReconnectingLogicalStream stream;
    private final PgConnection sql;
    private final PgConnection sampler;
    private final long slotStart;
    private final ScheduledExecutorService timers = Executors.newScheduledThreadPool(2);
    private final Thread writer;

    FaultScenario(PgServer server, String table, int rows, long seed) throws Exception {
        this.server = server;
        this.table = table;
        this.sql = connect(server.host(), server.port(), server.superuser().name(), server.superuser().password(),
                ReplicationMode.NONE);
        this.sampler = connect(server.host(), server.port(), server.superuser().name(), server.superuser().password(),
                ReplicationMode.NONE);
        await(sql.simpleQuery(ChangeHistory.schema(table, table + "_pub")));
        await(sql.query("SELECT pg_create_logical_replication_slot('" + table + "', 'pgoutput')"));
        this.slotStart = confirmedFlush();
        this.proxy = FaultProxy.start(server.host(), server.port());
        proxy.statusUpdateListener((c, w, flush, a, r) -> collector.checkConfirmed("status update", flush, slotStart));
        ConnectionConfig cfg = ConnectionConfig.builder().host(proxy.host()).port(proxy.port())
                .user(server.replicationUser().name()).password(server.replicationUser().password()).database("postgres")
                .sslMode(SslMode.DISABLE).replication(ReplicationMode.DATABASE).connectTimeout(Duration.ofSeconds(10))
                .build();
        LogicalReplicationOptions opts = LogicalReplicationOptions.builder(table).publications(table + "_pub")
                .statusInterval(Duration.ofMillis(200)).receiveTimeout(RECEIVE_TIMEOUT)
                // Only acknowledged commits are confirmed, so "confirmed <= acknowledged" is exact.
                .confirmIdleKeepalives(false).build();
        this.stream = ReconnectingLogicalStream.start(cfg, opts, collector,
                new ReconnectPolicy(Duration.ofMillis(100), Duration.ofSeconds(1), 2, 0.5, 50));
        timers.scheduleWithFixedDelay(() -> stream.acknowledge(collector.nextAck(ACK_LAG_MILLIS)), 50, 50, TimeUnit.MILLISECONDS);
        timers.scheduleWithFixedDelay(this::sampleSlot, 100, 100, TimeUnit.MILLISECONDS);
        this.workload = new Workload(sql, table, rows, seed);
        this.writer = new Thread(workload, "workload-" + table);
        writer.setDaemon(true);
    }

    private long startNanos;
    volatile long writerDoneNanos;

    void startWorkload() throws Exception {
        waitUntil("the stream to start", () -> collector.connections.get() >= 1);
        startNanos = System.nanoTime();
        writer.start();
    }

    /** Blocks until the writer has inserted {@code rows} rows (or finished). */
    void awaitInserted(int rows) throws Exception {
        waitUntil(rows + " rows written", () -> workload.inserted.get() >= rows || workload.done);
    }

    /** Blocks until the application has seen {@code n} connections in all. */
    void awaitConnections(int n) throws Exception {
        waitUntil(n + " connections", () -> collector.connections.get() >= n);
    }

    /** Writer done, everything committed delivered; then every rule is checked against the server's history. */
    void finish() throws Exception {
        writer.join(WAIT.toMillis());
        long written = System.nanoTime();
        assertNull(workload.failure, () -> "workload failed: " + workload.failure);
        assertTrue(workload.done, "workload finished");
        Map<Long, List<String>> history = ChangeHistory.read(sql, table);
        waitUntil("every committed transaction delivered", () -> collector.deliveredXids.containsAll(history.keySet()));
        long caughtUp = System.nanoTime();
        Thread.sleep(300); // a few more acknowledgements, status updates and slot samples
        await(stream.stop());
        timers.shutdownNow();
        timers.awaitTermination(5, TimeUnit.SECONDS);

        assertTrue(history.size() > workload.transactions.get() / 2, "history has the committed transactions");
        Map<Long, List<Collector.Delivery>> delivered = collector.byXid();
        // Nothing committed is missing, nothing else arrived, each copy equals the server's record.
        java.util.Set<Long> missing = new java.util.TreeSet<>(history.keySet());
        missing.removeAll(delivered.keySet());
        java.util.Set<Long> extra = new java.util.TreeSet<>(delivered.keySet());
        extra.removeAll(history.keySet());
        assertEquals(java.util.Set.of(), missing, "committed transactions never delivered (xids)");
        assertEquals(java.util.Set.of(), extra, "delivered transactions the server has no record of (xids)");
        int duplicates = 0;
        for (Map.Entry<Long, List<Collector.Delivery>> e : delivered.entrySet()) {
            List<String> expected = history.get(e.getKey());
            List<Collector.Delivery> copies = e.getValue();
            for (Collector.Delivery d : copies) {
                assertEquals(expected, d.changes(), () -> "xid " + e.getKey() + " on connection " + d.connection());
            }
            for (int i = 1; i < copies.size(); i++) {
                Collector.Delivery again = copies.get(i);
                duplicates++;
                // A transaction comes again only on a later connection, and only if it was not
                // acknowledged when the earlier one was lost.
                assertTrue(again.connection() > copies.get(i - 1).connection(), () -> "duplicate on the same connection: " + again);
                assertTrue(Long.compareUnsigned(again.endLsn(), again.ackedAtLastLoss()) > 0,
                        () -> "xid " + again.xid() + " ending at " + Lsn.format(again.endLsn())
                                + " was redelivered although acknowledged (" + Lsn.format(again.ackedAtLastLoss())
                                + ") when the connection was lost");
            }
        }
        assertEquals(List.of(), collector.violations, "confirmed beyond acknowledged");
        assertTrue(collector.statusUpdatesWithFlush.get() > 0, "confirmations were observed");
        System.out.printf("%s PG%d: %d transactions, %d rows, %d connections, %d duplicates, written in %d ms,"
                        + " delivered %d ms later, cuts %s%n", table, server.majorVersion(), history.size(),
                workload.inserted.get(), collector.connections.get(), duplicates, (written - startNanos) / 1_000_000,
                (caughtUp - written) / 1_000_000, proxy.cutLog());
    }

    private void sampleSlot() {
        try {
            collector.checkConfirmed("pg_replication_slots", confirmedFlushOn(sampler), slotStart);
        } catch (Exception e) {
            // the sampler is best effort; status updates are checked on the wire as well
        }
    }

    private long confirmedFlush() throws Exception {
        return confirmedFlushOn(sql);
    }

    private long confirmedFlushOn(PgConnection c) throws Exception {
        String v = await(c.query("SELECT confirmed_flush_lsn FROM pg_replication_slots WHERE slot_name = '" + table + "'"))
                .singleRow().get(0);
        return v == null ? 0 : Lsn.parse(v);
    }

    @Override
    public void close() throws Exception {
        timers.shutdownNow();
        try {
            stream.stop().toCompletableFuture().get(30, TimeUnit.SECONDS);
        } catch (Exception ignored) {
            // already failed; the assertion that matters has been made
        } finally {
            proxy.close();
            try {
                long deadline = System.nanoTime() + io.pgrepl.testkit.Waits.CEILING.toNanos();
                while (true) {
                    try {
                        await(sql.simpleQuery("SELECT pg_drop_replication_slot('" + table + "')"));
                        break;
                    } catch (Exception e) {
                        if (System.nanoTime() > deadline) throw e;
                        Thread.sleep(100);
                    }
                }
            } finally {
                sql.close();
                sampler.close();
            }
        }
    }

    static PgConnection connect(String host, int port, String user, String password, ReplicationMode mode) throws Exception {
        return await(PgConnection.connect(ConnectionConfig.builder().host(host).port(port).user(user).password(password)
                .database("postgres").sslMode(SslMode.DISABLE).replication(mode).build()));
    }

    static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(WAIT.toSeconds(), TimeUnit.SECONDS);
    }

    /** Waits for {@code cond}; fails at once if the stream gave up (its error is the cause). */
    void waitUntil(String what, BooleanSupplier cond) throws InterruptedException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!cond.getAsBoolean()) {
            if (stream != null && stream.completion().toCompletableFuture().isCompletedExceptionally()) {
                Throwable cause = stream.completion().toCompletableFuture().handle((v, e) -> e).join();
                throw new AssertionError("the stream gave up while waiting for " + what, cause);
            }
            if (System.nanoTime() > deadline) throw new AssertionError("timed out waiting for " + what);
            Thread.sleep(10);
        }
    }
}
