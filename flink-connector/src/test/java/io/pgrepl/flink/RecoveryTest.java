package io.pgrepl.flink;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.testkit.PgServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.core.execution.SavepointFormatType;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Exactly once across failures and savepoints: a task fails in the middle of the snapshot and
 * again in the middle of the stream, and the job restores from its checkpoint; a job stopped with a
 * savepoint resumes from it after more writes. Each time the changelog (collected exactly once,
 * applied in order by key) rebuilds the table and carries no stale version.
 */
class RecoveryTest {
    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    private static PgServer pg;

    @BeforeAll
    static void start() {
        pg = PgServer.start(PgServer.builder().version(18).build());
    }

    @AfterAll
    static void stop() {
        if (pg != null) pg.close();
    }

    /** Fails its task once after {@code atRead} snapshot rows, and once after {@code atChange} stream changes. */
    static final class FailTwice implements MapFunction<TextChange, TextChange> {
        static final AtomicLong reads = new AtomicLong();
        static final AtomicLong changes = new AtomicLong();
        static final AtomicBoolean snapshotFailed = new AtomicBoolean();
        static final AtomicBoolean streamFailed = new AtomicBoolean();
        private final long atRead;
        private final long atChange;

        FailTwice(long atRead, long atChange) {
            this.atRead = atRead;
            this.atChange = atChange;
        }

        @Override
        public TextChange map(TextChange c) {
            if (c.op.equals("READ")) {
                if (reads.incrementAndGet() >= atRead && snapshotFailed.compareAndSet(false, true)) {
                    throw new IllegalStateException("injected failure in the middle of the snapshot");
                }
            } else if (changes.incrementAndGet() >= atChange && streamFailed.compareAndSet(false, true)) {
                throw new IllegalStateException("injected failure in the middle of the stream");
            }
            return c;
        }
    }

    @Test
    void failuresMidSnapshotAndMidStreamRestoreExactly() throws Exception {
        String table = "public.\"Fail.Over\"";
        int rows = 30_000;
        Fixture.createTable(pg, table, rows);
        PgreplSource<TextChange> source = source(table, "fail_over");
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 5);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(4);
        env.enableCheckpointing(300);

        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong ops = new AtomicLong();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread workload = Fixture.workload(pg, table, rows, running, ops, failed);
        Fixture.Materialized m = new Fixture.Materialized();
        try {
            CloseableIterator<TextChange> it = env.fromSource(source, WatermarkStrategy.noWatermarks(), "pgrepl")
                    .map(new FailTwice(rows / 3, 400)).executeAndCollect("failures");
            boolean[] stopped = {false};
            Drain.until(it, c -> {
                m.apply(c);
                if (!stopped[0] && FailTwice.streamFailed.get() && m.changes >= 1_000) {
                    SnapshotAndStreamTest.stop(running, workload);
                    SnapshotAndStreamTest.sql(pg, "INSERT INTO " + table + " (id, amount, memo) VALUES (-1, 0, 'end')");
                    stopped[0] = true;
                }
                return m.rows.containsKey("-1");
            }, Duration.ofMinutes(3), () -> m.reads + " reads, " + m.changes + " changes, no end marker");
        } finally {
            running.set(false);
            workload.join(30_000);
        }
        assertNull(failed.get(), () -> "workload failed: " + failed.get());
        assertTrue(FailTwice.snapshotFailed.get() && FailTwice.streamFailed.get(), "both failures were injected");
        System.out.printf("failures: %d reads, %d changes collected, %d writes%n", m.reads, m.changes, ops.get());
        Fixture.assertSame(Fixture.table(pg, table), m);
    }

    /**
     * Slows the stream's changes down (so checkpoints fall inside a large transaction) and fails its
     * task once after {@code at} of them.
     */
    static final class SlowThenFail implements MapFunction<TextChange, TextChange> {
        static final AtomicLong changes = new AtomicLong();
        static final AtomicBoolean failed = new AtomicBoolean();
        private final long at;

        SlowThenFail(long at) {
            this.at = at;
        }

        @Override
        public TextChange map(TextChange c) throws Exception {
            if (c.op.equals("READ") || failed.get()) return c;
            Thread.sleep(1);
            if (changes.incrementAndGet() >= at && failed.compareAndSet(false, true)) {
                throw new IllegalStateException("injected failure inside a large transaction");
            }
            return c;
        }
    }

    /**
     * A failure inside a large transaction, restored from a checkpoint taken inside it: the new
     * connection sends the table's Relation again at the start of that transaction (the first one
     * had sent it earlier), and the position inside the transaction must still name the same changes.
     */
    @Test
    void failureInsideALargeTransactionResumesAtTheSameChange() throws Exception {
        String table = "public.\"Large Tx\"";
        int rows = 6_000;
        Fixture.createTable(pg, table, rows);
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(2);
        env.enableCheckpointing(100);
        Fixture.Materialized m = new Fixture.Materialized();
        boolean[] wrote = {false, false};
        CloseableIterator<TextChange> it = env.fromSource(source(table, "large_tx"), WatermarkStrategy.noWatermarks(), "pgrepl")
                .map(new SlowThenFail(3_000)).executeAndCollect("large transaction");
        Drain.until(it, c -> {
            m.apply(c);
            if (!wrote[0] && m.reads >= rows) {
                // A small transaction first: the stream's first connection sends the Relation with it.
                SnapshotAndStreamTest.sql(pg, "UPDATE " + table + " SET n = DEFAULT WHERE id = 1");
                wrote[0] = true;
            } else if (wrote[0] && !wrote[1] && m.changes >= 1) {
                SnapshotAndStreamTest.sql(pg, "UPDATE " + table + " SET n = DEFAULT, amount = amount + 1;"
                        + " INSERT INTO " + table + " (id, amount, memo) VALUES (-1, 0, 'end')");
                wrote[1] = true;
            }
            return m.rows.containsKey("-1");
        }, Duration.ofMinutes(3), () -> m.reads + " reads, " + m.changes + " changes, no end marker");
        assertTrue(SlowThenFail.failed.get(), "the failure was injected");
        System.out.printf("large transaction: %d reads, %d changes collected%n", m.reads, m.changes);
        Fixture.assertSame(Fixture.table(pg, table), m);
    }

    /** Collects into a queue of the test JVM (a MiniCluster runs here); one queue per job name. */
    static final class QueueSink implements Sink<TextChange> {
        static final ConcurrentHashMap<String, ConcurrentLinkedQueue<TextChange>> QUEUES = new ConcurrentHashMap<>();
        private final String name;

        QueueSink(String name) {
            this.name = name;
            QUEUES.computeIfAbsent(name, n -> new ConcurrentLinkedQueue<>());
        }

        @Override
        public SinkWriter<TextChange> createWriter(WriterInitContext context) {
            ConcurrentLinkedQueue<TextChange> q = QUEUES.get(name);
            return new SinkWriter<>() {
                @Override
                public void write(TextChange element, Context ctx) {
                    q.add(element);
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public void close() {}
            };
        }
    }

    @Test
    void stopWithSavepointWriteMoreResume(@TempDir Path dir) throws Exception {
        String table = "public.\"Save Point\"";
        int rows = 20_000;
        Fixture.createTable(pg, table, rows);
        ConcurrentLinkedQueue<TextChange> q = QueueSink.QUEUES.computeIfAbsent("savepoint", n -> new ConcurrentLinkedQueue<>());
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong ops = new AtomicLong();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread workload = Fixture.workload(pg, table, rows, running, ops, failed);
        String savepoint;
        try {
            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(4);
            env.enableCheckpointing(300);
            env.fromSource(source(table, "save_point"), WatermarkStrategy.noWatermarks(), "pgrepl").sinkTo(new QueueSink("savepoint")).setParallelism(1);
            JobClient job = env.executeAsync("before the savepoint");
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (q.stream().filter(c -> !c.op.equals("READ")).count() < 300) {
                assertTrue(System.nanoTime() < deadline, "no stream changes arrived in time");
                Thread.sleep(100);
            }
            savepoint = job.stopWithSavepoint(false, dir.toUri().toString(), SavepointFormatType.CANONICAL).get(2, TimeUnit.MINUTES);
        } finally {
            running.set(false);
            workload.join(30_000);
        }
        assertNull(failed.get(), () -> "workload failed: " + failed.get());
        int before = q.size();
        // More writes while no job runs: the slot keeps them.
        AtomicBoolean again = new AtomicBoolean(true);
        Thread more = Fixture.workload(pg, table, rows, again, ops, failed);
        Thread.sleep(1_500);
        again.set(false);
        more.join(30_000);
        Fixture.sql(pg, "INSERT INTO " + table + " (id, amount, memo) VALUES (-1, 0, 'end')");

        Configuration conf = new Configuration();
        conf.set(StateRecoveryOptions.SAVEPOINT_PATH, savepoint);
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(4);
        env.enableCheckpointing(300);
        env.fromSource(source(table, "save_point"), WatermarkStrategy.noWatermarks(), "pgrepl").sinkTo(new QueueSink("savepoint")).setParallelism(1);
        JobClient job = env.executeAsync("after the savepoint");
        try {
            long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (q.stream().noneMatch(c -> c.after != null && "-1".equals(c.after.get("id")))) {
                assertTrue(System.nanoTime() < deadline, "the end marker did not arrive in time");
                Thread.sleep(100);
            }
        } finally {
            job.cancel().get(1, TimeUnit.MINUTES);
        }
        Fixture.Materialized m = new Fixture.Materialized();
        List<TextChange> all = List.copyOf(q);
        all.forEach(m::apply);
        System.out.printf("savepoint: %d records before it, %d after; %d reads%n", before, all.size() - before, m.reads);
        assertTrue(all.subList(before, all.size()).stream().noneMatch(c -> c.op.equals("READ")), "the resumed job read no snapshot again");
        Fixture.assertSame(Fixture.table(pg, table), m);
    }

    private static PgreplSource<TextChange> source(String table, String slot) {
        return PgreplSource.builder()
                .url(pg.url(pg.superuser(), "postgres"))
                .slotName(slot)
                .tables(table)
                .chunkSize(3_000)
                .build(new TextChange.Deserializer());
    }
}
