package io.pgrepl.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.testkit.PgServer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A task failure in the middle of a snapshot of many small splits: the restored readers hold
 * finished splits whose reports the enumerator had not acknowledged yet, and report them again
 * while they register. The stream must still start, and the changelog rebuild the table exactly.
 *
 * <p>{@code -Dpgrepl.restore.runs=10} repeats each job (a stall came in two runs of three before
 * the fix); the suite runs it once per server.
 */
class SnapshotRestoreTest {
    private static final int RUNS = Integer.getInteger("pgrepl.restore.runs", 1);
    private static final int ROWS = Integer.getInteger("pgrepl.restore.rows", 20_000);
    /** How much later than the source's enumerator its readers checkpoint (0: as Flink schedules it). */
    private static final int WINDOW_MILLIS = Integer.getInteger("pgrepl.restore.window", 500);

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    private static final Map<Integer, PgServer> SERVERS = new HashMap<>();

    static List<Integer> versions() {
        return SnapshotAndStreamTest.versions();
    }

    private static synchronized PgServer server(int version) {
        return SERVERS.computeIfAbsent(version, v -> PgServer.start(PgServer.builder().version(v).build()));
    }

    @AfterAll
    static void stopServers() {
        SERVERS.values().forEach(PgServer::close);
    }

    /** Fails its task once, after {@code at} snapshot rows of the run it is named after. */
    static final class FailOnce implements MapFunction<TextChange, TextChange> {
        static final Map<String, AtomicLong> READS = new ConcurrentHashMap<>();
        static final Map<String, AtomicBoolean> FAILED = new ConcurrentHashMap<>();
        private final String run;
        private final long at;

        FailOnce(String run, long at) {
            this.run = run;
            this.at = at;
            READS.put(run, new AtomicLong());
            FAILED.put(run, new AtomicBoolean());
        }

        @Override
        public TextChange map(TextChange c) {
            if (c.op.equals("READ") && READS.get(run).incrementAndGet() >= at && FAILED.get(run).compareAndSet(false, true)) {
                throw new IllegalStateException("injected failure in the middle of the snapshot");
            }
            return c;
        }
    }

    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("versions")
    void aFailureAmongSmallSplitsStillStartsTheStream(int version) throws Exception {
        PgServer pg = server(version);
        for (int run = 0; run < RUNS; run++) {
            String name = "restore_" + version + "_" + run;
            String table = "public.\"Small Chunks " + run + "\"";
            Fixture.createTable(pg, table, ROWS);
            PgreplSource<TextChange> source = PgreplSource.builder()
                    .url(pg.url(pg.superuser(), "postgres"))
                    .slotName(name)
                    .tables(table)
                    .chunkSize(1_000)
                    .build(new TextChange.Deserializer());
            Configuration conf = new Configuration();
            conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
            conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
            conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
            env.setParallelism(4);
            env.enableCheckpointing(1_000);
            // checkpoints reach the readers well after their enumerator: a report in between is in one checkpoint only
            env.fromSource(new SlowCheckpointSource(WINDOW_MILLIS), WatermarkStrategy.noWatermarks(), "slow checkpoints")
                    .setParallelism(1).sinkTo(new DiscardingSink<>()).setParallelism(1);
            Fixture.Materialized m = new Fixture.Materialized();
            long started = System.nanoTime();
            long[] snapshotDone = {0};
            CloseableIterator<TextChange> it = env.fromSource(source, WatermarkStrategy.noWatermarks(), "pgrepl")
                    .map(new FailOnce(name, ROWS / 2)).executeAndCollect(name);
            Drain.until(it, c -> {
                m.apply(c);
                if (snapshotDone[0] == 0 && m.reads == ROWS) {
                    // every snapshot row arrived: a row written now can only come through the stream
                    snapshotDone[0] = System.nanoTime();
                    SnapshotAndStreamTest.sql(pg, "INSERT INTO " + table + " (id, amount, memo) VALUES (-1, 0, 'end')");
                }
                return m.rows.containsKey("-1");
            }, Duration.ofMinutes(4), () -> m.reads + " reads, " + m.changes + " changes; "
                    + (snapshotDone[0] == 0 ? "the snapshot did not end" : "the stream did not start"));
            assertTrue(FailOnce.FAILED.get(name).get(), "the failure was injected");
            System.out.printf("small chunks, PostgreSQL %d, run %d: %d reads, %d changes; snapshot %.1f s, stream %.1f s later%n",
                    version, run, m.reads, m.changes, (snapshotDone[0] - started) / 1e9, (System.nanoTime() - snapshotDone[0]) / 1e9);
            assertEquals(ROWS, m.reads, "every snapshot row exactly once");
            Fixture.assertSame(Fixture.table(pg, table), m);
        }
    }
}
