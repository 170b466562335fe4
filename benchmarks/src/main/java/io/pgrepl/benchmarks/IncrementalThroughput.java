package io.pgrepl.benchmarks;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.replication.SnapshotMode;
import io.pgrepl.client.snapshot.InitialSnapshot;
import io.pgrepl.client.snapshot.SnapshotHandler;
import io.pgrepl.client.snapshot.SnapshotOptions;
import io.pgrepl.client.snapshot.incremental.IncrementalOptions;
import io.pgrepl.client.snapshot.incremental.IncrementalSnapshots;
import io.pgrepl.client.snapshot.incremental.SnapshotReadHandler;
import io.pgrepl.client.snapshot.incremental.TableProgress;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.client.stream.LogicalReplicationStream;
import io.pgrepl.codec.pgoutput.TupleView;
import io.pgrepl.testkit.PgServer;
import java.lang.management.ManagementFactory;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * Incremental snapshot throughput against the exported-snapshot copy on the same table (1M rows,
 * 5 columns): rows/s and the client's CPU per row (the JVM's CPU time over the run, divided by the
 * rows), for 1 and 2 workers and two chunk sizes. Idle database: the figures are the chunking and
 * watermark cost, not the drop rule's.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar io.pgrepl.benchmarks.IncrementalThroughput [--rows 1000000] [--version 17]
 *     [--only copy,1024x1,1024x2,8192x1,8192x2,32768x1]</pre>
 * ({@code --only}: the variants to run, chunk size x workers; all by default).
 */
public final class IncrementalThroughput {
    private IncrementalThroughput() {}

    private static int slots;

    public static void main(String[] args) throws Exception {
        int rows = 1_000_000;
        int version = 17;
        String only = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rows" -> rows = Integer.parseInt(args[++i]);
                case "--version" -> version = Integer.parseInt(args[++i]);
                case "--only" -> only = "," + args[++i] + ",";
                default -> throw new IllegalArgumentException("usage: [--rows N] [--version 17] [--only copy,8192x1,...]");
            }
        }
        try (PgServer s = PgServer.builder().version(version).setting("max_replication_slots", "20")
                .setting("max_wal_senders", "20").start()) {
            System.out.printf("PostgreSQL %s, %d rows, JDK %s, %d CPUs%n", s.version(), rows, System.getProperty("java.version"),
                    Runtime.getRuntime().availableProcessors());
            s.sql("postgres", "CREATE TABLE t (id int8 PRIMARY KEY, t text, n numeric, ts timestamptz, j jsonb);"
                    + " INSERT INTO t SELECT g, 'row ' || g, g * 1.5, '2024-01-01'::timestamptz + g * interval '1 s',"
                    + " jsonb_build_object('k', g) FROM generate_series(1, " + rows + ") g; CREATE PUBLICATION p FOR TABLE t");
            s.sql("postgres", "VACUUM ANALYZE t");
            copy(s); // warm-up
            System.out.println("| variant | wall | rows/s | client CPU ns/row |");
            System.out.println("|---|---|---|---|");
            if (only == null || only.contains(",copy,")) report("exported-snapshot copy, 1 worker", rows, copy(s));
            for (int chunk : chunks(only)) {
                for (int workers : new int[] {1, 2}) {
                    if (only != null && !only.contains("," + chunk + "x" + workers + ",")) continue;
                    report("incremental, chunk " + chunk + ", " + workers + " worker(s)", rows, incremental(s, chunk, workers));
                }
            }
        }
    }

    /** 1024 and 8192, or the sizes {@code --only} names (so a larger chunk can be tried: 32768x1). */
    private static int[] chunks(String only) {
        if (only == null) return new int[] {1024, 8192};
        return java.util.Arrays.stream(only.split(",")).filter(v -> v.contains("x"))
                .mapToInt(v -> Integer.parseInt(v.substring(0, v.indexOf('x')))).distinct().toArray();
    }

    private record Run(long wallNanos, long cpuNanos, long rowsRead) {}

    private static void report(String name, long rows, Run r) {
        if (r.rowsRead != rows) throw new IllegalStateException(name + " read " + r.rowsRead + " rows, not " + rows);
        System.out.printf("| %s | %.2f s | %,d | %.0f |%n", name, r.wallNanos / 1e9, (long) (rows / (r.wallNanos / 1e9)),
                (double) r.cpuNanos / rows);
    }

    private static com.sun.management.OperatingSystemMXBean os() {
        return (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    }

    private static Run copy(PgServer s) throws Exception {
        LogicalReplicationOptions stream = LogicalReplicationOptions.builder("copy_" + (slots++)).publications("p").build();
        SnapshotOptions o = SnapshotOptions.of(stream).withWorkers(1).withSlot(SnapshotOptions.of(stream).slot().withTemporary(true));
        SnapshotHandler h = (row, lsn) -> consume(row);
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            long cpu0 = os().getProcessCpuTime();
            long t0 = System.nanoTime();
            long read0 = read;
            await(InitialSnapshot.copy(repl, o, h));
            return new Run(System.nanoTime() - t0, os().getProcessCpuTime() - cpu0, read - read0);
        }
    }

    private static Run incremental(PgServer s, int chunk, int workers) throws Exception {
        String slot = "inc_" + (slots++);
        CompletableFuture<Void> done = new CompletableFuture<>();
        SnapshotReadHandler h = new SnapshotReadHandler() {
            @Override
            public void onSnapshotRead(TupleView row, long position) {
                consume(row);
            }

            @Override
            public void onSnapshotProgress(TableProgress p) {
                if (p.status() == TableProgress.Status.COMPLETED) done.complete(null);
                else if (p.status() == TableProgress.Status.FAILED) done.completeExceptionally(new IllegalStateException(p.error()));
            }
        };
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            await(repl.createReplicationSlot(CreateSlotOptions.logical(slot, "pgoutput").withSnapshot(SnapshotMode.NOTHING)
                    .withTemporary(true)));
            IncrementalSnapshots snaps = IncrementalSnapshots.create(IncrementalOptions.of(config(s, ReplicationMode.NONE))
                    .withChunkSize(chunk).withWorkersPerTable(workers), h);
            LogicalReplicationStream st = repl.startLogical(LogicalReplicationOptions.builder(slot).publications("p").messages(true)
                    .autoAcknowledge(true).build(), snaps);
            await(st.started());
            long cpu0 = os().getProcessCpuTime();
            long t0 = System.nanoTime();
            long read0 = read;
            snaps.execute("public.t");
            await(done);
            Run r = new Run(System.nanoTime() - t0, os().getProcessCpuTime() - cpu0, read - read0);
            await(st.stop());
            snaps.close();
            return r;
        }
    }

    private static long sink;
    /** Rows handed to the handler (one handler thread at a time in both paths). */
    private static volatile long read;

    /** Reads every value's length in place, as a consumer that looks at each value would. */
    private static void consume(TupleView row) {
        read++;
        for (int i = 0; i < row.columnCount(); i++) sink += row.valueLength(i);
    }

    private static ConnectionConfig config(PgServer s, ReplicationMode mode) {
        return ConnectionConfig.builder().host(s.host()).port(s.port()).user(s.superuser().name()).password(s.superuser().password())
                .database("postgres").sslMode(SslMode.DISABLE).replication(mode).build();
    }

    private static PgConnection connect(PgServer s, ReplicationMode mode) throws Exception {
        return await(PgConnection.connect(config(s, mode)));
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(30, TimeUnit.MINUTES);
    }
}
