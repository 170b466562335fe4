package io.pgrepl.benchmarks.connect;

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
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

/**
 * The pgrepl engine legs of {@link IncrementalSideBySide}, in a JVM of their own so that their CPU is
 * the process's alone (no broker, no Connect worker). Long-lived like the worker, so that later rounds
 * run as warm as Debezium's do: it reads one command per line on stdin and answers each with one
 * {@code result} line on stdout.
 * <ul>
 *   <li>{@code incremental CHUNK WORKERS ID}: a fresh temporary slot and stream through the handler face
 *       ({@link IncrementalSnapshots}, signal table {@code public.dbz_signal}), then Debezium's
 *       {@code execute-snapshot} row with id {@code ID} inserted into the signal table; measured from
 *       just before that insert until the engine reports the table completed;</li>
 *   <li>{@code copy}: the exported-snapshot copy of the same table on a temporary slot, one worker;</li>
 *   <li>{@code quit}.</li>
 * </ul>
 * Answer: {@code result ROWS WALL_NANOS CPU_NANOS}, CPU being the whole JVM's (user + system, JIT and
 * GC included), or {@code error MESSAGE}. The handler reads every value's length in place.
 *
 * <p>Arguments: {@code HOST PORT USER TABLE PUBLICATION COPY_PUBLICATION} (the copy's holds the table alone,
 * since a copy reads every table of its publication, the signal table too); the password comes in the environment
 * ({@code PGREPL_BENCH_PASSWORD}), never on a command line.
 */
public final class EngineProcess {
    static final String PASSWORD_ENV = "PGREPL_BENCH_PASSWORD";

    private final ConnectionConfig ordinary;
    private final ConnectionConfig replication;
    private final String table;
    private final String publication;
    private final String copyPublication;
    private int slots;
    private long sink;
    /** Rows handed to the handler (the stream's event loop or the copy's one worker). */
    private volatile long read;

    private EngineProcess(ConnectionConfig ordinary, String table, String publication, String copyPublication) {
        this.ordinary = ordinary;
        this.replication = ordinary.toBuilder().replication(ReplicationMode.DATABASE).build();
        this.table = table;
        this.publication = publication;
        this.copyPublication = copyPublication;
    }

    public static void main(String[] args) throws Exception {
        String password = System.getenv(PASSWORD_ENV);
        ConnectionConfig config = ConnectionConfig.builder().host(args[0]).port(Integer.parseInt(args[1])).user(args[2])
                .password(password).database("postgres").sslMode(SslMode.DISABLE).replication(ReplicationMode.NONE).build();
        EngineProcess p = new EngineProcess(config, args[3], args[4], args[5]);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            String[] cmd = line.trim().split("\\s+");
            try (Profile ignored = Profile.start(cmd)) {
                long[] r = switch (cmd[0]) {
                    case "incremental" -> p.incremental(Integer.parseInt(cmd[1]), Integer.parseInt(cmd[2]), cmd[3]);
                    case "copy" -> p.copy();
                    case "quit" -> null;
                    default -> throw new IllegalArgumentException("unknown command " + line);
                };
                if (r == null) break;
                System.out.println("result " + r[0] + " " + r[1] + " " + r[2]);
            } catch (Exception e) {
                System.out.println("error " + String.valueOf(e).replace('\n', ' '));
            }
            System.out.flush();
        }
        System.exit(0);
    }

    private long[] incremental(int chunk, int workers, String signalId) throws Exception {
        String slot = "engine_" + ProcessHandle.current().pid() + "_" + (slots++);
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

            @Override
            public void onSignalRefused(String source, String reason) {
                done.completeExceptionally(new IllegalStateException("signal refused: " + reason));
            }
        };
        try (PgConnection repl = await(PgConnection.connect(replication));
             PgConnection sql = await(PgConnection.connect(ordinary))) {
            await(repl.createReplicationSlot(CreateSlotOptions.logical(slot, "pgoutput").withSnapshot(SnapshotMode.NOTHING)
                    .withTemporary(true)));
            IncrementalSnapshots snaps = IncrementalSnapshots.create(IncrementalOptions.of(ordinary).withChunkSize(chunk)
                    .withWorkersPerTable(workers).withSignalTable(IncrementalSideBySide.SIGNAL_TABLE), h);
            LogicalReplicationStream st = repl.startLogical(LogicalReplicationOptions.builder(slot).publications(publication)
                    .messages(true).autoAcknowledge(true).build(), snaps);
            await(st.started());
            long cpu0 = cpuNanos();
            long t0 = System.nanoTime();
            long read0 = read;
            await(sql.query(IncrementalSideBySide.signalInsert(signalId, table)));
            await(done);
            long[] r = {read - read0, System.nanoTime() - t0, cpuNanos() - cpu0};
            await(st.stop());
            snaps.close();
            return r;
        }
    }

    private long[] copy() throws Exception {
        LogicalReplicationOptions stream = LogicalReplicationOptions.builder("copy_" + ProcessHandle.current().pid() + "_"
                + (slots++)).publications(copyPublication).build();
        SnapshotOptions o = SnapshotOptions.of(stream).withWorkers(1).withSlot(SnapshotOptions.of(stream).slot().withTemporary(true));
        SnapshotHandler h = (row, lsn) -> consume(row);
        try (PgConnection repl = await(PgConnection.connect(replication))) {
            long cpu0 = cpuNanos();
            long t0 = System.nanoTime();
            long read0 = read;
            await(InitialSnapshot.copy(repl, o, h));
            return new long[] {read - read0, System.nanoTime() - t0, cpuNanos() - cpu0};
        }
    }

    /**
     * With {@code PGREPL_BENCH_JFR=DIR} in the environment, one JFR recording ("profile" settings) per
     * command, dumped as {@code DIR/COMMAND-ARGS.jfr} (read with {@code benchmarks/jfr-top.py}).
     */
    private record Profile(jdk.jfr.Recording recording, java.nio.file.Path file) implements AutoCloseable {
        static Profile start(String[] cmd) throws Exception {
            String dir = System.getenv("PGREPL_BENCH_JFR");
            if (dir == null || cmd[0].equals("quit")) return new Profile(null, null);
            jdk.jfr.Recording r = new jdk.jfr.Recording(jdk.jfr.Configuration.getConfiguration("profile"));
            r.start();
            return new Profile(r, java.nio.file.Path.of(dir, String.join("-", cmd) + ".jfr"));
        }

        @Override
        public void close() throws Exception {
            if (recording == null) return;
            recording.dump(file);
            recording.close();
        }
    }

    /** Reads every value's length in place, as a consumer that looks at each value would. */
    private void consume(TupleView row) {
        read++;
        for (int i = 0; i < row.columnCount(); i++) sink += row.valueLength(i);
    }

    private static long cpuNanos() {
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    private static <T> T await(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(30, TimeUnit.MINUTES);
    }
}
