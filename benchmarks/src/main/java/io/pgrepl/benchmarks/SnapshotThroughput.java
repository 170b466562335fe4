package io.pgrepl.benchmarks;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.client.snapshot.InitialSnapshot;
import io.pgrepl.client.snapshot.SnapshotHandler;
import io.pgrepl.client.snapshot.SnapshotOptions;
import io.pgrepl.client.snapshot.SnapshotResult;
import io.pgrepl.client.stream.LogicalReplicationOptions;
import io.pgrepl.codec.pgoutput.TupleView;
import io.pgrepl.testkit.PgServer;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * Initial-snapshot throughput: one worker's COPY against {@code psql -c "COPY t TO STDOUT" > /dev/null}
 * on the same table (text, then binary), scaling with 1, 2 and 4 workers (ctid ranges), and the
 * client's CPU per row (the whole JVM's CPU time over the copy, divided by the rows). The handler
 * reads every value's length in place, as a consumer that looks at each value would.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar io.pgrepl.benchmarks.SnapshotThroughput [--rows 2000000] [--version 18] [--runs 3]</pre>
 */
public final class SnapshotThroughput {
    private SnapshotThroughput() {}

    private static int slots;

    public static void main(String[] args) throws Exception {
        int rows = 2_000_000;
        int version = 18;
        int runs = 3;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rows" -> rows = Integer.parseInt(args[++i]);
                case "--version" -> version = Integer.parseInt(args[++i]);
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("usage: [--rows N] [--version 18] [--runs 3]");
            }
        }
        try (PgServer s = PgServer.builder().version(version).setting("max_replication_slots", "50")
                .setting("max_wal_senders", "20").setting("max_wal_size", "4GB").setting("checkpoint_timeout", "1h").start()) {
            System.out.printf("PostgreSQL %s, %d rows, JDK %s, %d CPUs%n", s.version(), rows, System.getProperty("java.version"),
                    Runtime.getRuntime().availableProcessors());
            s.sql("postgres", "CREATE TABLE t (id int8 PRIMARY KEY, t text, n numeric, ts timestamptz, j jsonb);"
                    + " INSERT INTO t SELECT g, 'row ' || g || E'\\tx', g * 1.5, '2024-01-01'::timestamptz + g * interval '1 s',"
                    + " jsonb_build_object('k', g, 's', md5(g::text)) FROM generate_series(1, " + rows + ") g;"
                    + " CREATE PUBLICATION p FOR TABLE t");
            s.sql("postgres", "VACUUM ANALYZE t");
            long pages;
            try (PgConnection c = connect(s, ReplicationMode.NONE)) {
                pages = Long.parseLong(await(c.query("SELECT pg_relation_size('t') / current_setting('block_size')::int")).singleRow().get(0));
                System.out.printf("table t: %d pages (%d MB)%n", pages, pages * 8 / 1024);
            }
            copy(s, 1, Long.MAX_VALUE, false); // warm-up: JIT and server cache
            psql(s, false);
            System.out.println("| variant | best wall | median wall | rows/s (best) | client CPU ns/row (median) |");
            System.out.println("|---|---|---|---|---|");
            for (boolean binary : new boolean[] {false, true}) {
                String fmt = binary ? "binary" : "text";
                report("psql COPY " + fmt + " > /dev/null", rows, repeat(runs, () -> psql(s, binary)));
                report("pgrepl 1 worker " + fmt, rows, repeat(runs, () -> copy(s, 1, Long.MAX_VALUE, binary)));
            }
            long unit = Math.max(1, pages / 16);
            for (int w : new int[] {1, 2, 4}) {
                report("pgrepl " + w + " worker(s) text, ranges of " + unit + " pages", rows, repeat(runs, () -> copy(s, w, unit, false)));
            }
        }
    }

    /** wall ns, client cpu ns. */
    private record Run(long wallNanos, long cpuNanos) {}

    private interface Body {
        Run run() throws Exception;
    }

    private static List<Run> repeat(int n, Body b) throws Exception {
        List<Run> out = new ArrayList<>();
        for (int i = 0; i < n; i++) out.add(b.run());
        return out;
    }

    private static void report(String name, long rows, List<Run> runs) {
        List<Long> walls = new ArrayList<>(runs.stream().map(Run::wallNanos).toList());
        List<Long> cpus = new ArrayList<>(runs.stream().map(Run::cpuNanos).toList());
        Collections.sort(walls);
        Collections.sort(cpus);
        long best = walls.get(0);
        long median = walls.get(walls.size() / 2);
        long cpu = cpus.get(cpus.size() / 2);
        System.out.printf("| %s | %.2f s | %.2f s | %,d | %s |%n", name, best / 1e9, median / 1e9, (long) (rows / (best / 1e9)),
                cpu < 0 ? "" : String.format("%.0f", (double) cpu / rows));
    }

    private static Run psql(PgServer s, boolean binary) throws Exception {
        ProcessBuilder pb = new ProcessBuilder("psql", "-X", "-h", s.host(), "-p", String.valueOf(s.port()), "-U", s.superuser().name(),
                "-d", "postgres", "-c", "COPY t TO STDOUT" + (binary ? " WITH (FORMAT binary)" : ""));
        pb.environment().put("PGPASSWORD", s.superuser().password());
        pb.redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.INHERIT);
        long t0 = System.nanoTime();
        Process p = pb.start();
        if (p.waitFor() != 0) throw new IllegalStateException("psql failed");
        return new Run(System.nanoTime() - t0, -1);
    }

    private static Run copy(PgServer s, int workers, long unitPages, boolean binary) throws Exception {
        String slot = "snap_" + (slots++);
        LogicalReplicationOptions stream = LogicalReplicationOptions.builder(slot).publications("p").binary(binary ? Boolean.TRUE : null).build();
        SnapshotOptions o = SnapshotOptions.of(stream).withWorkers(workers).withUnitPages(unitPages)
                .withSlot(SnapshotOptions.of(stream).slot().withTemporary(true));
        long[] sum = new long[1];
        SnapshotHandler h = new SnapshotHandler() {
            @Override
            public void onRead(TupleView row, long lsn) {
                long n = 0;
                for (int i = 0; i < row.columnCount(); i++) n += row.valueLength(i);
                sum[0] += n;
            }
        };
        com.sun.management.OperatingSystemMXBean os = (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        try (PgConnection repl = connect(s, ReplicationMode.DATABASE)) {
            long cpu0 = os.getProcessCpuTime();
            long t0 = System.nanoTime();
            SnapshotResult r = await(InitialSnapshot.copy(repl, o, h));
            long wall = System.nanoTime() - t0;
            long cpu = os.getProcessCpuTime() - cpu0;
            if (sum[0] == 0 || r.rows() == 0) throw new IllegalStateException("nothing copied");
            return new Run(wall, cpu);
        }
    }

    private static PgConnection connect(PgServer s, ReplicationMode mode) throws Exception {
        return await(PgConnection.connect(ConnectionConfig.builder().host(s.host()).port(s.port())
                .user(s.superuser().name()).password(s.superuser().password()).database("postgres")
                .sslMode(SslMode.DISABLE).replication(mode).build()));
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(30, TimeUnit.MINUTES);
    }
}
