package io.pgrepl.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.testkit.PgServer;
import java.util.Map;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.testutils.InMemoryReporter;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import io.pgrepl.testkit.PgVersions;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Parallelism 4 over a table of real shapes while inserts, updates, key changes and deletes run:
 * the snapshot splits and the stream split merged into one changelog rebuild the table exactly,
 * and no change of a key carries an older version than one emitted before it.
 */
class SnapshotAndStreamTest {
    private static final InMemoryReporter METRICS = InMemoryReporter.createWithRetainedMetrics();

    @RegisterExtension
    static final MiniClusterExtension FLINK = new MiniClusterExtension(new MiniClusterResourceConfiguration.Builder()
            .setConfiguration(METRICS.addToConfiguration(new Configuration()))
            .setNumberTaskManagers(1).setNumberSlotsPerTaskManager(4).build());

    /** The newest and the oldest server of the matrix (-Dpg.versions). */
    static List<Integer> versions() {
        List<Integer> m = PgVersions.matrix();
        int lo = Collections.min(m);
        int hi = Collections.max(m);
        return lo == hi ? List.of(hi) : List.of(hi, lo);
    }

    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("versions")
    void snapshotSplitsAndStreamRebuildTheTable(int version) throws Exception {
        try (PgServer pg = PgServer.start(PgServer.builder().version(version).build())) {
            run(pg);
        }
    }

    static void stop(AtomicBoolean running, Thread workload) {
        running.set(false);
        try {
            workload.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void sql(PgServer pg, String sql) {
        try {
            Fixture.sql(pg, sql);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void run(PgServer pg) throws Exception {
        String table = "\"Orders Ü\"";
        int rows = 50_000;
        Fixture.createTable(pg, "public." + table, rows);
        PgreplSource<TextChange> source = PgreplSource.builder()
                .url(pg.url(pg.superuser(), "postgres"))
                .slotName("snap_stream")
                .tables("public." + table)
                .chunkSize(4_000)
                .slotMetricsInterval(Duration.ofMillis(500))
                .build(new TextChange.Deserializer());
        String job = "snapshot-and-stream-" + pg.majorVersion();

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(4);
        env.enableCheckpointing(300);

        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong ops = new AtomicLong();
        AtomicReference<Throwable> failed = new AtomicReference<>();
        Thread workload = Fixture.workload(pg, "public." + table, rows, running, ops, failed);
        Fixture.Materialized m = new Fixture.Materialized();
        try {
            CloseableIterator<TextChange> it = env.fromSource(source, WatermarkStrategy.noWatermarks(), "pgrepl").executeAndCollect(job);
            boolean[] stopped = {false};
            Drain.until(it, c -> {
                m.apply(c);
                if (!stopped[0] && m.reads >= rows / 2 && ops.get() > 200) {
                    // well into the snapshot and with writes behind: stop writing, then mark the end
                    stop(running, workload);
                    sql(pg, "INSERT INTO public." + table + " (id, amount, memo) VALUES (-1, 0, 'end')");
                    stopped[0] = true;
                }
                return m.rows.containsKey("-1");
            }, Duration.ofMinutes(3), () -> m.reads + " reads, " + m.changes + " changes, no end marker");
        } finally {
            running.set(false);
            workload.join(30_000);
        }
        assertNull(failed.get(), () -> "workload failed: " + failed.get());
        System.out.printf("snapshot and stream: %d reads, %d changes, %d writes%n", m.reads, m.changes, ops.get());
        assertTrue(m.changes > 0, "no stream change arrived");
        Fixture.assertSame(Fixture.table(pg, "public." + table), m);

        // The metrics count what was emitted: every snapshot row reached the collector once; changes
        // may have been emitted after the last checkpoint the collector saw.
        assertEquals(m.reads, sum(job, "pgrepl.snapshotRowsEmitted"));
        assertTrue(sum(job, "pgrepl.changesEmitted") >= m.changes, "changesEmitted below what was collected");
        long total = sum(job, "pgrepl.snapshotSplitsTotal");
        assertTrue(total > 1 && total == sum(job, "pgrepl.snapshotSplitsFinished"), "splits finished " + total);
        assertTrue(sum(job, "pgrepl.slotRetainedWalBytes") > 0, "the slot's retained WAL was read");
        assertTrue(sum(job, "pgrepl.commitLagMillis") >= 0);
    }

    /** The sum over subtasks of a metric of the job (counters and numeric gauges). */
    private static long sum(String job, String name) {
        long total = 0;
        int found = 0;
        for (Map.Entry<MetricGroup, Map<String, Metric>> g : METRICS.getMetricsByGroup().entrySet()) {
            for (Map.Entry<String, Metric> e : g.getValue().entrySet()) {
                String id = g.getKey().getMetricIdentifier(e.getKey());
                if (!id.contains("." + job + ".") || !id.endsWith("." + name)) continue;
                found++;
                if (e.getValue() instanceof Counter c) total += c.getCount();
                else if (e.getValue() instanceof Gauge<?> gauge && gauge.getValue() instanceof Number n) total += n.longValue();
            }
        }
        assertTrue(found > 0, "no metric " + name + " of job " + job);
        return total;
    }
}
