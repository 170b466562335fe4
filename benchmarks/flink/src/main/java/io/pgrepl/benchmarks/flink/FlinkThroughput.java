package io.pgrepl.benchmarks.flink;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.replication.CreateSlotOptions;
import io.pgrepl.client.replication.SnapshotMode;
import io.pgrepl.flink.DebeziumJsonDeserializer;
import io.pgrepl.flink.PgRowDeserializer;
import io.pgrepl.flink.PgreplDeserializer;
import io.pgrepl.flink.PgreplSource;
import io.pgrepl.flink.StartupMode;
import io.pgrepl.flink.table.BenchRowData;
import io.pgrepl.testkit.PgServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * The Flink source side by side with the pgrepl command on one server and one table (id int8 key,
 * text, numeric, timestamptz, jsonb; the shape of {@code IncrementalThroughput}), both writing
 * Debezium-like JSON per row:
 *
 * <ul>
 *   <li><b>snapshot</b>: the rows read by the Flink source at parallelism 1, 2 and 4 (startup mode
 *       snapshot, chunks of {@code --chunk} rows) against {@code pgrepl stream --snapshot=incremental}
 *       with as many workers and the same chunk size; each measured from its start (job submission,
 *       process launch) to its last row;
 *   <li><b>stream</b>: a backlog of {@code --changes} inserts (transactions of 1,000) written before
 *       either starts, drained by the Flink source (parallelism 1, startup mode committed-offset) and
 *       by {@code pgrepl stream}; rows/s and the client's CPU seconds per million changes.
 * </ul>
 *
 * CPU: the command's process CPU; for Flink, this JVM's process CPU over the run (the local cluster
 * runs here), so Flink's own runtime counts; both from the start and from the first row to the last
 * (the latter leaves out starting the job or the process). Variants alternate their order each round.
 *
 * <pre>mvn -pl benchmarks/flink dependency:build-classpath -Dmdep.outputFile=target/classpath.txt
 * java -cp benchmarks/flink/target/classes:$(cat benchmarks/flink/target/classpath.txt) io.pgrepl.benchmarks.flink.FlinkThroughput
 *     [--rows 1000000] [--changes 1000000] [--chunk 8192] [--version 18] [--rounds 1] [--cli ./pgrepl] [--out FILE.tsv]
 *     [--only PREFIX] [--formats json,row,rowdata] [--parallelism 1,2,4]</pre>
 *
 * {@code --formats} picks the source's deserializers: json (DebeziumJsonDeserializer, the default),
 * row (PgRowDeserializer), rowdata (the SQL connector's RowData, changelog-mode 'all');
 * {@code --changes 0} leaves the stream out; {@code --warm} sets the rows each format reads first to warm
 * this JVM (100,000: too few for the first measured variant, which paid for more compilation and heap growth).
 */
public final class FlinkThroughput {
    private FlinkThroughput() {}

    /** Counts the elements of the job running now; when the target is reached, records the time and this JVM's CPU. */
    public static final class Count<T> implements MapFunction<T, T> {
        static final AtomicLong N = new AtomicLong();
        static volatile long target;
        static volatile long doneNanos;
        static volatile long doneCpuNanos;
        static volatile long firstNanos;
        static volatile long firstCpuNanos;

        @Override
        public T map(T s) {
            long n = N.incrementAndGet();
            if (n == 1) {
                firstCpuNanos = cpuNanos();
                firstNanos = System.nanoTime();
            }
            if (n == target) {
                long t = System.nanoTime();
                doneCpuNanos = cpuNanos(); // before doneNanos, which the main thread waits for
                doneNanos = t;
            }
            return s;
        }
    }

    /**
     * A run: {@code wallSeconds} and {@code cpuSeconds} from the start (submission, launch) to the last row, {@code flowSeconds}
     * and {@code flowCpuSeconds} from the first row to the last (without the start-up: the job's or the process's).
     */
    record Result(String variant, long rows, double wallSeconds, double flowSeconds, double cpuSeconds, double flowCpuSeconds) {
        double rowsPerSecond() {
            return rows / wallSeconds;
        }

        double flowRowsPerSecond() {
            return (rows - 1) / flowSeconds;
        }
    }

    private static String url;
    /** Runs only the variants whose name starts with this (e.g. "flink snapshot p1"), or all. */
    private static String only = "";
    private static String cli = "./pgrepl";
    /** The source's element types to run: json (DebeziumJsonDeserializer), row (PgRowDeserializer), rowdata (the SQL connector's). */
    private static List<String> formats = List.of("json");
    /** The snapshot's parallelisms (and the command's worker counts). */
    private static int[] parallelisms = {1, 2, 4};

    public static void main(String[] args) throws Exception {
        int rows = 1_000_000;
        int changes = 1_000_000;
        int chunk = 8192;
        int version = 18;
        int rounds = 1;
        int warm = 100_000;
        String out = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--rows" -> rows = Integer.parseInt(args[++i]);
                case "--changes" -> changes = Integer.parseInt(args[++i]);
                case "--chunk" -> chunk = Integer.parseInt(args[++i]);
                case "--version" -> version = Integer.parseInt(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--cli" -> cli = args[++i];
                case "--out" -> out = args[++i];
                case "--only" -> only = args[++i];
                case "--formats" -> formats = List.of(args[++i].split(","));
                case "--warm" -> warm = Integer.parseInt(args[++i]);
                case "--parallelism" -> parallelisms = java.util.Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt).toArray();
                default -> throw new IllegalArgumentException("usage: [--rows N] [--changes N] [--chunk N] [--version 18] [--rounds N] [--cli ./pgrepl] [--out FILE] [--only PREFIX] [--formats json,row,rowdata] [--parallelism 1,2,4] [--warm 100000]");
            }
        }
        System.out.printf("start %s, load %s%n", LocalDateTime.now(), load());
        List<Result> results = new ArrayList<>();
        try (PgServer pg = PgServer.builder().version(version).start(); PgConnection sql = connect(pg, ReplicationMode.NONE)) {
            url = pg.url(pg.superuser(), "postgres");
            System.out.printf("PostgreSQL %s%n", pg.version());
            table(sql, "bench_warm", warm, true);
            table(sql, "bench_snap", rows, true);
            // Warm this JVM (the command starts a fresh one each time, as it would run).
            for (String f : formats) flinkSnapshot("bench_warm", warm, 2, chunk, f, "warm");
            for (int r = 0; r < rounds; r++) {
                for (int p : parallelisms) {
                    if ((r + p) % 2 == 0) {
                        for (String f : formats) results.add(flinkSnapshot("bench_snap", rows, p, chunk, f, "r" + r));
                        results.add(cliSnapshot("bench_snap", rows, p, chunk, "r" + r));
                    } else {
                        results.add(cliSnapshot("bench_snap", rows, p, chunk, "r" + r));
                        for (String f : formats) results.add(flinkSnapshot("bench_snap", rows, p, chunk, f, "r" + r));
                    }
                }
            }
            await(sql.simpleQuery("DROP TABLE bench_snap, bench_warm"));
            for (int r = 0; r < rounds && changes > 0; r++) {
                table(sql, "bench_stream", 0, false);
                try (PgConnection repl = connect(pg, ReplicationMode.DATABASE)) {
                    for (String slot : List.of("flink_stream", "cli_stream")) {
                        await(repl.createReplicationSlot(CreateSlotOptions.logical(slot, "pgoutput").withSnapshot(SnapshotMode.NOTHING)));
                    }
                }
                for (int t = 0; t < changes; t += 1000) {
                    await(sql.simpleQuery("INSERT INTO bench_stream SELECT g, 'row ' || g, g * 1.5, '2024-01-01'::timestamptz"
                            + " + g * interval '1 s', jsonb_build_object('k', g) FROM generate_series(" + (t + 1) + ", "
                            + Math.min(changes, t + 1000) + ") g"));
                }
                if (r % 2 == 0) {
                    results.add(flinkStream(changes));
                    results.add(cliStream(changes));
                } else {
                    results.add(cliStream(changes));
                    results.add(flinkStream(changes));
                }
                await(sql.simpleQuery("SELECT pg_drop_replication_slot(s) FROM unnest(ARRAY['flink_stream', 'cli_stream']) s;"
                        + " DROP PUBLICATION bench_stream_pub; DROP TABLE bench_stream"));
            }
        }
        System.out.printf("end %s, load %s%n", LocalDateTime.now(), load());
        StringBuilder tsv = new StringBuilder("variant\trows\twall_s\trows_per_s\tfirst_to_last_rows_per_s\tcpu_s\tcpu_s_per_million\tfirst_to_last_cpu_s_per_million\n");
        for (Result res : results) {
            if (res == null) continue;
            tsv.append(String.format("%s\t%d\t%.2f\t%.0f\t%.0f\t%.2f\t%.2f\t%.2f%n", res.variant(), res.rows(), res.wallSeconds(),
                    res.rowsPerSecond(), res.flowRowsPerSecond(), res.cpuSeconds(), res.cpuSeconds() / (res.rows() / 1e6),
                    res.flowCpuSeconds() / ((res.rows() - 1) / 1e6)));
        }
        System.out.print(tsv);
        if (out != null) Files.writeString(Path.of(out), tsv);
    }

    private static void table(PgConnection sql, String name, int rows, boolean fill) throws Exception {
        await(sql.simpleQuery("CREATE TABLE " + name + " (id int8 PRIMARY KEY, t text, n numeric, ts timestamptz, j jsonb);"
                + (fill ? " INSERT INTO " + name + " SELECT g, 'row ' || g, g * 1.5, '2024-01-01'::timestamptz + g * interval '1 s',"
                + " jsonb_build_object('k', g) FROM generate_series(1, " + rows + ") g; ANALYZE " + name + ";" : "")
                + " CREATE PUBLICATION " + name + "_pub FOR TABLE " + name));
    }

    private static Result flinkSnapshot(String table, int rows, int parallelism, int chunk, String format, String round) throws Exception {
        PgreplSource<?> source = PgreplSource.builder().url(url).slotName("flink_" + table + "_" + parallelism)
                .publication(table + "_pub").tables(table).startupMode(StartupMode.SNAPSHOT).chunkSize(chunk)
                .build(deserializer(format));
        // json keeps the variant names of earlier runs
        return flink(source, rows, parallelism, "flink snapshot p" + parallelism + (format.equals("json") ? "" : " " + format) + " " + round);
    }

    private static PgreplDeserializer<?> deserializer(String format) {
        return switch (format) {
            case "json" -> new DebeziumJsonDeserializer("bench", "postgres");
            case "row" -> new PgRowDeserializer();
            case "rowdata" -> BenchRowData.deserializer("postgres");
            default -> throw new IllegalArgumentException("--formats: " + format + " is not one of json, row, rowdata");
        };
    }

    private static Result flinkStream(int changes) throws Exception {
        PgreplSource<String> source = PgreplSource.builder().url(url).slotName("flink_stream").publication("bench_stream_pub")
                .tables("bench_stream").startupMode(StartupMode.COMMITTED_OFFSET)
                .build(new DebeziumJsonDeserializer("bench", "postgres"));
        return flink(source, changes, 1, "flink stream");
    }

    private static <T> Result flink(PgreplSource<T> source, int rows, int parallelism, String variant) throws Exception {
        if (!variant.startsWith(only) && !variant.endsWith("warm")) return null;
        Count.N.set(0);
        Count.target = rows;
        Count.doneNanos = 0;
        Count.doneCpuNanos = 0;
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(parallelism, new Configuration());
        env.enableCheckpointing(1_000);
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "pgrepl").map(new Count<T>()).returns(source.getProducedType())
                .sinkTo(new DiscardingSink<>());
        long cpu0 = cpuNanos();
        long t0 = System.nanoTime();
        JobClient job = env.executeAsync(variant);
        while (Count.doneNanos == 0) {
            if (job.getJobStatus().get().isTerminalState()) throw new IllegalStateException(variant + " ended after " + Count.N.get() + " rows");
            Thread.sleep(20);
        }
        Result r = new Result(variant, rows, (Count.doneNanos - t0) / 1e9, (Count.doneNanos - Count.firstNanos) / 1e9,
                (Count.doneCpuNanos - cpu0) / 1e9, (Count.doneCpuNanos - Count.firstCpuNanos) / 1e9);
        if (!job.getJobStatus().get().isTerminalState()) job.cancel().get(1, TimeUnit.MINUTES);
        Thread.sleep(1_000); // the cancelled job lets go of its slot
        print(r);
        return r;
    }

    private static Result cliSnapshot(String table, int rows, int workers, int chunk, String round) throws Exception {
        return command(List.of(cli, "stream", url, "-S", "cli_" + table + "_" + workers, "-P", table + "_pub", "--create-slot",
                "--temporary", "--snapshot=incremental", "--snapshot-tables", "public." + table, "--chunk-size",
                Integer.toString(chunk), "--snapshot-workers", Integer.toString(workers)), "{\"type\":\"read\"", rows,
                "pgrepl stream --snapshot=incremental workers " + workers + " " + round);
    }

    private static Result cliStream(int changes) throws Exception {
        return command(List.of(cli, "stream", url, "-S", "cli_stream", "-P", "bench_stream_pub"), "{\"type\":\"insert\"", changes,
                "pgrepl stream");
    }

    /** Runs the command until {@code rows} lines starting with {@code prefix} came out. */
    private static Result command(List<String> command, String prefix, int rows, String variant) throws Exception {
        if (!variant.startsWith(only)) return null;
        long t0 = System.nanoTime();
        Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        long n = 0;
        long done = 0;
        long first = 0;
        Duration cpu = Duration.ZERO;
        Duration firstCpu = Duration.ZERO;
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8), 1 << 16)) {
            for (String line; (line = in.readLine()) != null; ) {
                if (!line.startsWith(prefix)) continue;
                if (++n == 1) {
                    firstCpu = p.toHandle().info().totalCpuDuration().orElse(Duration.ZERO);
                    first = System.nanoTime();
                }
                if (n == rows) {
                    done = System.nanoTime();
                    cpu = p.toHandle().info().totalCpuDuration().orElse(Duration.ZERO);
                    break;
                }
            }
        } finally {
            p.destroy();
            p.waitFor(30, TimeUnit.SECONDS);
        }
        if (done == 0) throw new IllegalStateException(variant + " ended after " + n + " rows (exit " + p.exitValue() + ")");
        Result r = new Result(variant, rows, (done - t0) / 1e9, (done - first) / 1e9, cpu.toNanos() / 1e9, cpu.minus(firstCpu).toNanos() / 1e9);
        print(r);
        return r;
    }

    private static void print(Result r) {
        System.out.printf("%-55s %,10d rows %7.2f s %,10.0f rows/s (first to last row %,10.0f rows/s) %7.2f CPU-s (first to last %.2f) (load %s)%n",
                r.variant(), r.rows(), r.wallSeconds(), r.rowsPerSecond(), r.flowRowsPerSecond(), r.cpuSeconds(), r.flowCpuSeconds(), load());
    }

    static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static String load() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (Exception e) {
            return "?";
        }
    }

    private static PgConnection connect(PgServer pg, ReplicationMode mode) throws Exception {
        return PgConnection.connect(ConnectionConfig.parse(pg.url(pg.superuser(), "postgres")).toBuilder().replication(mode).build())
                .toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    private static <T> T await(CompletionStage<T> s) throws Exception {
        return s.toCompletableFuture().get(10, TimeUnit.MINUTES);
    }
}
