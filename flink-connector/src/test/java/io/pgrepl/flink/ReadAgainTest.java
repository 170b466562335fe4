package io.pgrepl.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.Waits;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Tables read again while the job runs, at parallelism 4 with writes going on: an
 * {@code execute-snapshot} row in Debezium's signal table reads the table it names (and only it)
 * in parallel splits while the stream waits, and a slot dropped under the running job is created
 * again and every table read again ({@code snapshotOnLostSlot}). Each time the changelog, applied
 * by key, gives the table as the server has it, with no version older than one emitted before.
 */
class ReadAgainTest {
    private static final InMemoryReporter METRICS = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setConfiguration(METRICS.addToConfiguration(new Configuration()))
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    /** The enumerator's streamSuspended gauge of a job, or -1 while it is not registered. */
    private static long suspendedGauge(String job) {
        for (Map.Entry<MetricGroup, Map<String, Metric>> g : METRICS.getMetricsByGroup().entrySet()) {
            for (Map.Entry<String, Metric> e : g.getValue().entrySet()) {
                String id = g.getKey().getMetricIdentifier(e.getKey());
                if (id.contains("." + job + ".") && id.endsWith(".pgrepl.streamSuspended") && e.getValue() instanceof Gauge<?> gauge
                        && gauge.getValue() instanceof Number n) {
                    return n.longValue();
                }
            }
        }
        return -1;
    }

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

    private static StreamExecutionEnvironment env() {
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 20);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(500));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.setParallelism(4);
        env.enableCheckpointing(300);
        return env;
    }

    /**
     * The job starts at the latest offset (no snapshot), so the rows written before it reach the
     * changelog only through the signal. The signal's table is read while inserts, updates, key
     * changes and deletes go on; the other table is not read; a stop-snapshot and a malformed row
     * are logged and ignored, and the stream goes on.
     */
    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("versions")
    void aSignalReadsTheTableItNamesAgain(int version) throws Exception {
        signalled(server(version), "", -1);
    }

    /**
     * As above, with the job's tasks failing once in the middle of the re-read (restored from the
     * last checkpoint: the suspension it holds, the splits read so far) and once again when the
     * stream has gone on after it.
     */
    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("newest")
    void aSignalledReadSurvivesFailures(int version) throws Exception {
        signalled(server(version), "_failing", 5_000);
        assertTrue(FailOnce.failedAtRead.get() && FailOnce.failedAfter.get(), "both failures were injected");
    }

    static List<Integer> newest() {
        return List.of(versions().get(0));
    }

    /** Fails its task once at the {@code atRead}-th read, and once at the 200th change after the reads. */
    static final class FailOnce implements org.apache.flink.api.common.functions.MapFunction<TextChange, TextChange> {
        static final AtomicLong reads = new AtomicLong();
        static final AtomicLong changesAfter = new AtomicLong();
        static final AtomicBoolean failedAtRead = new AtomicBoolean();
        static final AtomicBoolean failedAfter = new AtomicBoolean();
        private final long atRead;

        FailOnce(long atRead) {
            this.atRead = atRead;
        }

        @Override
        public TextChange map(TextChange c) {
            if (atRead < 0) return c;
            if (c.op.equals("READ")) {
                if (reads.incrementAndGet() >= atRead && failedAtRead.compareAndSet(false, true)) {
                    throw new IllegalStateException("injected failure in the middle of the re-read");
                }
            } else if (failedAtRead.get() && reads.get() >= 10_000 && changesAfter.incrementAndGet() >= 200
                    && failedAfter.compareAndSet(false, true)) {
                throw new IllegalStateException("injected failure after the re-read");
            }
            return c;
        }
    }

    private static void signalled(PgServer pg, String suffix, long failAtRead) throws Exception {
        int version = pg.majorVersion();
        String table = "public.\"Signalled Ü" + suffix + "\"";
        String other = "public.\"Not signalled" + suffix + "\"";
        String signals = "public.\"pgrepl Signals" + suffix + "\"";
        int rows = 20_000;
        Fixture.createTable(pg, table, rows);
        Fixture.createTable(pg, other, 2_000);
        Fixture.sql(pg, "CREATE TABLE " + signals + " (id varchar(42) PRIMARY KEY, type varchar(32) NOT NULL, data varchar(2048))");
        PgreplSource<TextChange> source = PgreplSource.builder()
                .url(pg.url(pg.superuser(), "postgres"))
                .slotName("read_again_signal" + suffix)
                .tables(table, other)
                .signalTable(signals)
                .startupMode(StartupMode.LATEST_OFFSET)
                .chunkSize(2_000)
                .build(new TextChange.Deserializer());

        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong ops = new AtomicLong();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread workload = null;
        Fixture.Materialized m = new Fixture.Materialized();
        long[] otherReads = {0};
        long[] changesBeforeReads = {-1};
        String job = "signal-" + version + suffix;
        // the gauge is read while the job runs: it must show the stream waiting at some point
        AtomicLong highestSuspended = new AtomicLong(-1);
        AtomicBoolean watching = new AtomicBoolean(true);
        Thread gaugeWatch = new Thread(() -> {
            while (watching.get()) {
                highestSuspended.accumulateAndGet(suspendedGauge(job), Math::max);
                sleep(20);
            }
        }, "gauge-watch");
        gaugeWatch.start();
        try {
            CloseableIterator<TextChange> it = env().fromSource(source, WatermarkStrategy.noWatermarks(), "pgrepl")
                    .map(new FailOnce(failAtRead)).executeAndCollect(job);
            Thread[] w = {null};
            boolean[] signalled = {false};
            boolean[] stopped = {false};
            // The first change of the other table marks the stream as running (the job starts at the latest
            // offset, so a row written before its slot is not streamed): then the writes and the signal start.
            AtomicBoolean streaming = new AtomicBoolean();
            Thread marks = new Thread(() -> {
                for (int id = -5; !streaming.get() && id > -500; id--) {
                    SnapshotAndStreamTest.sql(pg, "INSERT INTO " + other + " (id, amount, memo) VALUES (" + id + ", 0, 'stream runs')");
                    sleep(500);
                }
            }, "marks");
            marks.start();
            Drain.until(it, c -> {
                if (c.table.equals("public.Not signalled" + suffix)) {
                    if (c.op.equals("READ")) otherReads[0]++;
                    if (!signalled[0]) {
                        streaming.set(true);
                        w[0] = Fixture.workload(pg, table, rows, running, ops, failed);
                        SnapshotAndStreamTest.sql(pg, "INSERT INTO " + signals + " VALUES ('bad', 'execute-snapshot', '{not json');"
                                + "INSERT INTO " + signals + " VALUES ('stop', 'stop-snapshot', '{\"data-collections\": [\"public.x\"]}')");
                        sleep(300); // writes before the signal too
                        SnapshotAndStreamTest.sql(pg, "INSERT INTO " + signals + " VALUES ('go', 'execute-snapshot',"
                                + " '{\"data-collections\": [\"public.\\\"Signalled Ü" + suffix + "\\\"\"], \"type\": \"incremental\"}')");
                        signalled[0] = true;
                    }
                    return false;
                }
                if (c.op.equals("READ") && changesBeforeReads[0] < 0) changesBeforeReads[0] = m.changes;
                m.apply(c);
                if (!stopped[0] && m.reads >= rows / 2 && ops.get() > 200 && (failAtRead < 0 || FailOnce.failedAfter.get())) {
                    SnapshotAndStreamTest.stop(running, w[0]);
                    SnapshotAndStreamTest.sql(pg, "INSERT INTO " + table + " (id, amount, memo) VALUES (-1, 0, 'end')");
                    stopped[0] = true;
                }
                return stopped[0] && m.rows.containsKey("-1");
            }, Duration.ofMinutes(3), () -> m.reads + " reads, " + m.changes + " changes, signalled " + signalled[0]);
            workload = w[0];
        } finally {
            running.set(false);
            if (workload != null) workload.join(30_000);
            watching.set(false);
            gaugeWatch.join(10_000);
        }
        assertNull(failed.get(), () -> "workload failed: " + failed.get());
        assertEquals(1, highestSuspended.get(), "streamSuspended showed the stream waiting while the table was read again");
        System.out.printf("signal: %d reads, %d changes (%d before the first read), %d writes%n", m.reads, m.changes,
                changesBeforeReads[0], ops.get());
        assertTrue(changesBeforeReads[0] > 0, "changes of the table were streamed before the signal's reads");
        assertTrue(m.reads >= rows / 2, "the signalled table was read: " + m.reads);
        assertEquals(0, otherReads[0], "the table the signal does not name was read");
        Fixture.assertSame(Fixture.table(pg, table), m);
    }

    /**
     * The slot is dropped under the running job, and rows change while there is none: the stream
     * split finds it gone, a new slot is created, every table is read again, and the stream goes on
     * from the new slot. The gap's inserts and updates reach the changelog through the reads.
     */
    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("versions")
    void aLostSlotIsCreatedAgainAndTheTablesReadAgain(int version) throws Exception {
        PgServer pg = server(version);
        String table = "public.\"Lost.Slot\"";
        String slot = "read_again_lost";
        int rows = 10_000;
        Fixture.createTable(pg, table, rows);
        PgreplSource<TextChange> source = PgreplSource.builder()
                .url(pg.url(pg.superuser(), "postgres"))
                .slotName(slot)
                .tables(table)
                .snapshotOnLostSlot(true)
                .chunkSize(2_000)
                .build(new TextChange.Deserializer());

        Fixture.Materialized m = new Fixture.Materialized();
        boolean[] dropped = {false};
        boolean[] marked = {false};
        boolean[] ended = {false};
        CloseableIterator<TextChange> it = env().fromSource(source, WatermarkStrategy.noWatermarks(), "pgrepl")
                .executeAndCollect("lost-slot-" + version);
        Drain.until(it, c -> {
            m.apply(c);
            if (!dropped[0] && m.reads == rows) {
                // the snapshot is in; a change proves the stream runs, then the slot goes
                SnapshotAndStreamTest.sql(pg, "UPDATE " + table + " SET memo = 'streamed', n = DEFAULT WHERE id = 1");
                dropped[0] = true;
            } else if (dropped[0] && !marked[0] && c.op.equals("UPDATE") && "streamed".equals(c.after.get("memo"))) {
                dropSlot(pg, slot);
                SnapshotAndStreamTest.sql(pg, "INSERT INTO " + table + " (id, amount, memo) VALUES (-2, 2.5, 'in the gap');"
                        + "UPDATE " + table + " SET memo = 'gap', n = DEFAULT WHERE id % 10 = 3");
                marked[0] = true;
            }
            if (marked[0] && !ended[0] && m.rows.containsKey("-2") && m.reads >= 2L * rows) {
                SnapshotAndStreamTest.sql(pg, "INSERT INTO " + table + " (id, amount, memo) VALUES (-1, 0, 'end')");
                ended[0] = true;
            }
            return m.rows.containsKey("-1");
        }, Duration.ofMinutes(3), () -> m.reads + " reads, " + m.changes + " changes, dropped " + marked[0]);
        System.out.printf("lost slot: %d reads, %d changes%n", m.reads, m.changes);
        assertTrue(m.reads >= 2L * rows + 1, "every row was read again from the new slot: " + m.reads);
        assertEquals(1, Fixture.query(pg, "SELECT 1 FROM pg_replication_slots WHERE slot_name = '" + slot + "'").size(),
                "the slot was created again");
        Fixture.assertSame(Fixture.table(pg, table), m);
    }

    /** Ends the slot's walsender and drops the slot, again until the drop wins over the job's reconnection. */
    private static void dropSlot(PgServer pg, String slot) {
        long deadline = System.nanoTime() + Waits.CEILING.toNanos();
        while (true) {
            try {
                Fixture.query(pg, "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = '"
                        + slot + "' AND active_pid IS NOT NULL");
                Fixture.sql(pg, "SELECT pg_drop_replication_slot('" + slot + "')");
                return;
            } catch (Exception e) {
                if (System.nanoTime() > deadline) throw new IllegalStateException("could not drop slot " + slot, e);
                sleep(50);
            }
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
