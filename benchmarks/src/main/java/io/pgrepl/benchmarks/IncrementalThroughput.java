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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * Incremental snapshot throughput against the exported-snapshot copy on the same table (1M rows,
 * 5 columns): rows/s and the client's CPU per row (the JVM's CPU time over the run, divided by the
 * rows), for 1 and 2 workers and several chunk sizes. Idle database: the figures are the chunking
 * and watermark cost, not the drop rule's.
 *
 * <p>Fair to every variant: each runs once on a small table first (discarded), so none pays the
 * JIT's warm-up for the others; then {@code --rounds} rounds, the variants in forward order in
 * even rounds and reversed in odd ones (a variant that runs after a slow one, or first, does so
 * in half the rounds only). Each round gives each variant's ratio to that round's copy; the
 * summary gives the medians over the rounds.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar io.pgrepl.benchmarks.IncrementalThroughput [--rows 1000000] [--version 17]
 *     [--rounds 3] [--warmup-rows 100000] [--only copy,1024x1,1024x2,8192x1,8192x2,32768x1] [--setting name=value]...</pre>
 * ({@code --only}: the variants to run, chunk size x workers; copy and 1024/8192 x 1/2 by default).
 */
public final class IncrementalThroughput {
    private IncrementalThroughput() {}

    private static int slots;
    /** Server settings from {@code --setting}, e.g. log_min_duration_statement=0 to see each chunk's query time. */
    private static final Map<String, String> settings = new LinkedHashMap<>();

    /** A variant: chunk 0 is the exported-snapshot copy. */
    private record Variant(int chunk, int workers) {
        String name() {
            return chunk == 0 ? "copy" : chunk + "x" + workers;
        }
    }

    public static void main(String[] args) throws Exception {
        int rows = 1_000_000;
        int version = 17;
        int rounds = 1;
        int warmupRows = 100_000;
        String only = "copy,1024x1,1024x2,8192x1,8192x2";
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rows" -> rows = Integer.parseInt(args[++i]);
                case "--version" -> version = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--warmup-rows" -> warmupRows = Integer.parseInt(args[++i]);
                case "--only" -> only = args[++i];
                case "--setting" -> {
                    String kv = args[++i];
                    settings.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
                }
                default -> throw new IllegalArgumentException(
                        "usage: [--rows N] [--version 17] [--rounds N] [--warmup-rows N] [--only copy,8192x1,...] [--setting name=value]...");
            }
        }
        List<Variant> variants = parse(only);
        run(version, rows, rounds, warmupRows, variants);
    }

    private static void run(int version, int rows, int rounds, int warmupRows, List<Variant> variants) throws Exception {
        io.pgrepl.testkit.PgServerSpec.Builder b = PgServer.builder().version(version).setting("max_replication_slots", "20").setting("max_wal_senders", "20");
        for (Map.Entry<String, String> e : settings.entrySet()) b = b.setting(e.getKey(), e.getValue());
        try (PgServer s = b.start()) {
            System.out.printf("PostgreSQL %s, %d rows, %d rounds after a warm-up of %d rows, JDK %s, %d CPUs%n", s.version(), rows,
                    rounds, warmupRows, System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
            createTable(s, "w", "pw", warmupRows);
            createTable(s, "t", "p", rows);
            for (Variant v : variants) check(v, warmupRows, run(s, v, "w", "pw")); // warm-up, discarded
            Map<Variant, List<Run>> runs = new LinkedHashMap<>();
            for (Variant v : variants) runs.put(v, new ArrayList<>());
            System.out.println("| round | variant | wall | rows/s | vs the round's copy | client CPU ns/row | load average |");
            System.out.println("|---|---|---|---|---|---|---|");
            for (int round = 0; round < rounds; round++) {
                List<Variant> order = new ArrayList<>(variants);
                if (round % 2 == 1) Collections.reverse(order);
                Map<Variant, Run> these = new LinkedHashMap<>();
                for (Variant v : order) {
                    Run r = check(v, rows, run(s, v, "t", "p"));
                    these.put(v, r);
                    runs.get(v).add(r);
                }
                Run copy = these.entrySet().stream().filter(e -> e.getKey().chunk == 0).map(Map.Entry::getValue).findFirst().orElse(null);
                for (Variant v : order) {
                    Run r = these.get(v);
                    System.out.printf("| %d | %s | %.2f s | %,d | %s | %.0f | %.2f |%n", round, v.name(), r.wallNanos / 1e9,
                            (long) r.rate(rows), copy == null ? "" : String.format("%.2f×", r.rate(rows) / copy.rate(rows)),
                            (double) r.cpuNanos / rows, r.load);
                }
            }
            System.out.println();
            System.out.println("| variant | median rows/s | median vs the copy (per round) | median client CPU ns/row |");
            System.out.println("|---|---|---|---|");
            List<Run> copies = runs.entrySet().stream().filter(e -> e.getKey().chunk == 0).map(Map.Entry::getValue).findFirst().orElse(null);
            for (Variant v : variants) {
                List<Run> rs = runs.get(v);
                double[] ratio = new double[rs.size()];
                for (int i = 0; i < rs.size() && copies != null; i++) ratio[i] = rs.get(i).rate(rows) / copies.get(i).rate(rows);
                System.out.printf("| %s | %,d | %s | %.0f |%n", v.name(), (long) median(rs.stream().mapToDouble(r -> r.rate(rows))),
                        copies == null ? "" : String.format("%.2f×", median(Arrays.stream(ratio))),
                        median(rs.stream().mapToDouble(r -> (double) r.cpuNanos / rows)));
            }
        }
    }

    private static List<Variant> parse(String only) {
        List<Variant> vs = new ArrayList<>();
        for (String v : only.split(",")) {
            if (v.equals("copy")) vs.add(new Variant(0, 1));
            else if (v.matches("[0-9]+x[0-9]+")) vs.add(new Variant(Integer.parseInt(v.substring(0, v.indexOf('x'))),
                    Integer.parseInt(v.substring(v.indexOf('x') + 1))));
            else throw new IllegalArgumentException("--only: copy or CHUNKxWORKERS, not " + v);
        }
        return vs;
    }

    private static double median(java.util.stream.DoubleStream values) {
        double[] a = values.sorted().toArray();
        return a.length == 0 ? Double.NaN : a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }

    private static void createTable(PgServer s, String table, String publication, int rows) throws Exception {
        s.sql("postgres", "CREATE TABLE " + table + " (id int8 PRIMARY KEY, t text, n numeric, ts timestamptz, j jsonb);"
                + " INSERT INTO " + table + " SELECT g, 'row ' || g, g * 1.5, '2024-01-01'::timestamptz + g * interval '1 s',"
                + " jsonb_build_object('k', g) FROM generate_series(1, " + rows + ") g; CREATE PUBLICATION " + publication
                + " FOR TABLE " + table);
        s.sql("postgres", "VACUUM ANALYZE " + table);
    }

    private static Run run(PgServer s, Variant v, String table, String publication) throws Exception {
        return v.chunk == 0 ? copy(s, publication) : incremental(s, table, publication, v.chunk, v.workers);
    }

    private record Run(long wallNanos, long cpuNanos, long rowsRead, double load) {
        double rate(long rows) {
            return rows / (wallNanos / 1e9);
        }
    }

    private static Run check(Variant v, long rows, Run r) {
        if (r.rowsRead != rows) throw new IllegalStateException(v.name() + " read " + r.rowsRead + " rows, not " + rows);
        return r;
    }

    private static com.sun.management.OperatingSystemMXBean os() {
        return (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    }

    private static Run copy(PgServer s, String publication) throws Exception {
        LogicalReplicationOptions stream = LogicalReplicationOptions.builder("copy_" + (slots++)).publications(publication).build();
        SnapshotOptions o = SnapshotOptions.of(stream).withWorkers(1).withSlot(SnapshotOptions.of(stream).slot().withTemporary(true));
        SnapshotHandler h = (row, lsn) -> consume(row);
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            long cpu0 = os().getProcessCpuTime();
            long t0 = System.nanoTime();
            long read0 = read;
            await(InitialSnapshot.copy(repl, o, h));
            return new Run(System.nanoTime() - t0, os().getProcessCpuTime() - cpu0, read - read0, os().getSystemLoadAverage());
        }
    }

    private static Run incremental(PgServer s, String table, String publication, int chunk, int workers) throws Exception {
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
            LogicalReplicationStream st = repl.startLogical(LogicalReplicationOptions.builder(slot).publications(publication).messages(true)
                    .autoAcknowledge(true).build(), snaps);
            await(st.started());
            long cpu0 = os().getProcessCpuTime();
            long t0 = System.nanoTime();
            long read0 = read;
            snaps.execute("public." + table);
            await(done);
            Run r = new Run(System.nanoTime() - t0, os().getProcessCpuTime() - cpu0, read - read0, os().getSystemLoadAverage());
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
