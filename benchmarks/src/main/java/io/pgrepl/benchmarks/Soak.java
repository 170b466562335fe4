package io.pgrepl.benchmarks;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.QueryResult;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.Row;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.ReconnectPolicy;
import io.pgrepl.client.stream.ReconnectingLogicalStream;
import io.pgrepl.testkit.AuthMethod;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.fault.FaultProxy;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Soak: streams {@code --changes} row changes (inserts, counter updates, deletes) from a real
 * server through a {@link FaultProxy} with {@link ReconnectingLogicalStream}, striking with a
 * fault every {@code --fault-every} seconds in turn: walsender terminated, stall, cut inside a
 * CopyData frame, cut now, half-open, cut inside the SCRAM exchange (a fault waits until the
 * stream has applied what was written before the previous one). Prints the heap after a full
 * GC over time and, at the end, the exact comparison of what the application applied
 * (de-duplicated by commit LSN) with the server's tables.
 *
 * <pre>
 * mvn -B -q -ntp -pl benchmarks -am package -DskipTests
 * java -Xmx256m -cp benchmarks/target/benchmarks.jar io.pgrepl.benchmarks.Soak --changes 10000000 --fault-every 5
 * </pre>
 * {@code --max-lag N} (default 200,000; 0 = none) bounds how far the writer runs ahead of the application.
 * Exit status 0 only when the comparison is exact and nothing anomalous was applied.
 */
public final class Soak {
    private Soak() {}

    public static void main(String[] args) throws Exception {
        long target = 10_000_000;
        int faultEvery = 3;
        int major = 18;
        int sampleEvery = 15;
        long maxLag = 200_000;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--changes" -> target = Long.parseLong(args[++i].replace("_", ""));
                case "--fault-every" -> faultEvery = Integer.parseInt(args[++i]);
                case "--major" -> major = Integer.parseInt(args[++i]);
                case "--sample-every" -> sampleEvery = Integer.parseInt(args[++i]);
                case "--max-lag" -> maxLag = Long.parseLong(args[++i].replace("_", ""));
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                        + " (--changes N, --fault-every S, --major M, --sample-every S, --max-lag N)");
            }
        }
        try (PgServer server = PgServer.builder().version(major).auth(AuthMethod.SCRAM_SHA_256)
                .setting("max_wal_size", "1GB").setting("checkpoint_timeout", "30s").start();
             FaultProxy proxy = FaultProxy.start(server.host(), server.port())) {
            boolean ok = false;
            try {
                ok = run(server, proxy, target, faultEvery, sampleEvery, maxLag);
            } finally {
                if (!ok) {
                    // The server's directory goes with close(): keep its log for the post-mortem.
                    java.nio.file.Path kept = java.nio.file.Path.of(System.getProperty("java.io.tmpdir"), "soak-server.log");
                    java.nio.file.Files.copy(server.logFile(), kept, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                    System.out.println("server log kept in " + kept);
                }
            }
            System.exit(ok ? 0 : 1);
        }
    }

    private static boolean run(PgServer server, FaultProxy proxy, long target, int faultEvery, int sampleEvery,
                               long maxLag) throws Exception {
        server.sql("postgres", "CREATE TABLE soak_rows (id bigint PRIMARY KEY, v int NOT NULL);"
                + "CREATE TABLE soak_counters (k int PRIMARY KEY, n bigint NOT NULL);"
                + "INSERT INTO soak_counters SELECT g, 0 FROM generate_series(0, " + (SoakState.COUNTERS - 1) + ") g;"
                + "CREATE PUBLICATION soak_pub FOR TABLE soak_rows, soak_counters;");
        server.sql("postgres", "SELECT pg_create_logical_replication_slot('soak', 'pgoutput')");
        ConnectionConfig direct = ConnectionConfig.builder().host(server.host()).port(server.port())
                .user(server.superuser().name()).password(server.superuser().password()).database("postgres")
                .sslMode(SslMode.DISABLE).build();
        ConnectionConfig viaProxy = ConnectionConfig.builder().host(proxy.host()).port(proxy.port())
                .user(server.replicationUser().name()).password(server.replicationUser().password()).database("postgres")
                .sslMode(SslMode.DISABLE).replication(ReplicationMode.DATABASE).connectTimeout(Duration.ofSeconds(10))
                .build();
        SoakState state = new SoakState();
        ReconnectingLogicalStream stream = ReconnectingLogicalStream.start(viaProxy,
                LogicalReplicationOptions.builder("soak").publications("soak_pub").statusInterval(Duration.ofSeconds(1))
                        .receiveTimeout(Duration.ofSeconds(5)).build(),
                state, new ReconnectPolicy(Duration.ofMillis(100), Duration.ofSeconds(2), 2, 0.5, 0));
        SoakWriter writer = new SoakWriter(direct, target, () -> state.changesApplied, maxLag);
        Thread writerThread = new Thread(writer, "soak-writer");
        writerThread.start();

        PgConnection admin = PgConnection.connect(direct).toCompletableFuture().get(30, TimeUnit.SECONDS);
        String[] kinds = {"terminate walsender", "stall", "cut inside CopyData", "cut now", "half-open", "cut inside SCRAM"};
        int[] struck = new int[kinds.length];
        List<String> heap = new ArrayList<>();
        long start = System.nanoTime();
        long nextFault = start + TimeUnit.SECONDS.toNanos(faultEvery);
        long nextSample = start;
        int fault = 0;
        long writtenAtFault = 0;
        System.out.printf("soak: %,d changes, a fault every %d s, PostgreSQL %s%n", target, faultEvery, server.version());
        while (!(writer.done && state.markerSeen)) {
            if (writer.failure != null) throw new IllegalStateException("writer failed", writer.failure);
            if (stream.completion().toCompletableFuture().isCompletedExceptionally()) {
                stream.completion().toCompletableFuture().join();
            }
            long now = System.nanoTime();
            if (now >= nextSample) {
                System.gc();
                long used = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
                String line = String.format("t=%4ds applied=%,11d written=%,11d heapAfterGC=%5.1f MB reconnects=%d slot %s",
                        (now - start) / 1_000_000_000L, state.changesApplied, writer.changes.get(), used / 1048576.0,
                        stream.reconnects(), slotState(admin));
                heap.add(line);
                System.out.println(line);
                nextSample = now + TimeUnit.SECONDS.toNanos(sampleEvery);
            }
            // The next fault waits until the stream has recovered from the last one and applied
            // everything written before it: on a loaded machine a reconnect's catch-up (the
            // walsender decodes again from the slot's restart_lsn) can outlast the interval, and
            // striking again before it ends would measure the machine, not the client.
            if (now >= nextFault && !writer.done && state.changesApplied >= writtenAtFault) {
                int k = fault++ % kinds.length;
                writtenAtFault = writer.changes.get();
                strike(k, proxy, admin);
                struck[k]++;
                nextFault = now + TimeUnit.SECONDS.toNanos(faultEvery);
            }
            Thread.sleep(100);
            stream.acknowledge(state.appliedEnd); // durable once applied: acknowledged from the poll loop
        }
        long elapsed = System.nanoTime() - start;
        writerThread.join();
        stream.stop().toCompletableFuture().get(60, TimeUnit.SECONDS);
        boolean ok = compare(admin, state);
        admin.close();
        System.out.printf("elapsed %d s, %,d changes applied (%,.0f/s), %,d transactions, %,d duplicate transactions skipped,"
                        + " %d connections, %d reconnects, proxy cuts %d%n", elapsed / 1_000_000_000L, state.changesApplied,
                state.changesApplied / (elapsed / 1e9), state.transactionsApplied, state.duplicateTransactions,
                state.connections, stream.reconnects(), proxy.cuts());
        StringBuilder f = new StringBuilder("faults:");
        for (int i = 0; i < kinds.length; i++) f.append(' ').append(kinds[i]).append('=').append(struck[i]);
        System.out.println(f);
        System.out.println(ok ? "RESULT: exact" : "RESULT: MISMATCH");
        return ok;
    }

    /**
     * The slot's restart_lsn and confirmed_flush_lsn, its wal_status and the oldest WAL segment
     * still on disk: what to look at if the server ever reports a removed segment.
     */
    private static String slotState(PgConnection admin) throws Exception {
        Row r = admin.query("SELECT restart_lsn, confirmed_flush_lsn, wal_status,"
                        + " (SELECT min(name) FROM pg_ls_waldir() WHERE name ~ '^[0-9A-F]{24}$'), pg_current_wal_lsn()"
                        + " FROM pg_replication_slots WHERE slot_name = 'soak'")
                .toCompletableFuture().get(30, TimeUnit.SECONDS).singleRow();
        return "restart=" + r.get(0) + " confirmed=" + r.get(1) + " " + r.get(2) + " oldestSegment=" + r.get(3)
                + " current=" + r.get(4);
    }

    private static void strike(int kind, FaultProxy proxy, PgConnection admin) throws Exception {
        switch (kind) {
            case 0 -> admin.query("SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = 'soak'")
                    .toCompletableFuture().get(30, TimeUnit.SECONDS);
            case 1 -> proxy.stall();
            case 2 -> proxy.cutInsideNextCopyData();
            case 3 -> proxy.cutNow();
            case 4 -> proxy.halfOpen();
            default -> {
                proxy.cutNextStartups(1, 11);
                proxy.cutNow();
            }
        }
    }

    /** The server's tables against what the application applied; prints each figure. */
    private static boolean compare(PgConnection admin, SoakState s) throws Exception {
        Row rows = admin.query("SELECT count(*), coalesce(max(id), 0), coalesce(sum(id), 0),"
                + " coalesce(sum((id * 2654435761) % 1000000007), 0) FROM soak_rows WHERE id > 0")
                .toCompletableFuture().get(300, TimeUnit.SECONDS).singleRow();
        long count = Long.parseLong(rows.get(0));
        long maxId = Long.parseLong(rows.get(1));
        long sum = Long.parseLong(rows.get(2));
        long hash = Long.parseLong(rows.get(3));
        java.util.BitSet present = (java.util.BitSet) s.inserted.clone();
        present.andNot(s.deleted);
        long cSum = 0;
        long cHash = 0;
        for (int id = present.nextSetBit(0); id >= 0; id = present.nextSetBit(id + 1)) {
            cSum += id;
            cHash += ((long) id * 2654435761L) % 1000000007L;
        }
        boolean insertsExact = s.inserted.cardinality() == maxId && s.inserted.nextClearBit(1) == maxId + 1;
        QueryResult counters = admin.query("SELECT k, n FROM soak_counters ORDER BY k").toCompletableFuture()
                .get(60, TimeUnit.SECONDS);
        int counterMismatches = 0;
        long counterTotal = 0;
        for (Row r : counters.rows()) {
            long n = Long.parseLong(r.get(1));
            counterTotal += n;
            if (s.counters[Integer.parseInt(r.get(0))] != n) counterMismatches++;
        }
        System.out.printf("server: rows %,d (ids 1..%,d), sum %d, hash %d, counter updates %,d%n", count, maxId, sum, hash,
                counterTotal);
        System.out.printf("client: rows %,d (inserted %,d, deleted %,d), sum %d, hash %d, counter mismatches %d, anomalies %d%n",
                present.cardinality(), s.inserted.cardinality(), s.deleted.cardinality(), cSum, cHash, counterMismatches,
                s.anomalies);
        return insertsExact && present.cardinality() == count && cSum == sum && cHash == hash && counterMismatches == 0
                && s.anomalies == 0;
    }
}
