package io.pgrepl.flink;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.testkit.PgServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.api.common.state.CheckpointListener;
import org.apache.flink.api.connector.sink2.Sink;
import org.apache.flink.api.connector.sink2.SinkWriter;
import org.apache.flink.api.connector.sink2.WriterInitContext;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.runtime.state.FunctionInitializationContext;
import org.apache.flink.runtime.state.FunctionSnapshotContext;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.checkpoint.CheckpointedFunction;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A plain upsert sink, applied as each element arrives and never rolled back: a task fails in the
 * middle of the snapshot, and rows the source emitted after the last completed checkpoint (the sink
 * applied them) are deleted or moved to another key before the restored job reads their ranges
 * again, under a new snapshot that no longer holds them. The rows must still leave the sink: the
 * sink must end up equal to the table.
 */
class UpsertSinkRestoreTest {
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

    /** The sink's table, by job: id to the row's column texts. */
    static final Map<String, Map<String, Map<String, String>>> TABLES = new ConcurrentHashMap<>();
    /** Jobs whose sink has seen a change from the stream. */
    static final Map<String, AtomicBoolean> STREAMED = new ConcurrentHashMap<>();

    /** Upserts by {@code id} into {@link #TABLES} at once, as a key-value store written without transactions would. */
    static final class UpsertSink implements Sink<TextChange> {
        private final String job;

        UpsertSink(String job) {
            this.job = job;
        }

        @Override
        public SinkWriter<TextChange> createWriter(WriterInitContext context) {
            Map<String, Map<String, String>> table = TABLES.get(job);
            AtomicBoolean streamed = STREAMED.get(job);
            return new SinkWriter<>() {
                @Override
                public void write(TextChange c, Context ctx) {
                    if (!c.op.equals("READ")) streamed.set(true);
                    switch (c.op) {
                        case "READ", "INSERT" -> table.put(c.after.get("id"), c.after);
                        case "UPDATE" -> {
                            if (c.before != null) table.remove(c.before.get("id"));
                            table.put(c.after.get("id"), c.after);
                        }
                        case "DELETE" -> table.remove(c.before.get("id"));
                        default -> throw new AssertionError(c.op);
                    }
                }

                @Override
                public void flush(boolean endOfInput) {}

                @Override
                public void close() {}
            };
        }
    }

    /**
     * Passes the snapshot rows on and remembers which it passed after the last completed
     * checkpoint's barrier. Once at least {@code atRead} rows passed and 300 of them after that
     * barrier, it deletes some of those from the table and moves others to a new key, then fails.
     */
    static final class RemoveThenFail implements MapFunction<TextChange, TextChange>, CheckpointedFunction, CheckpointListener {
        static final Map<String, AtomicBoolean> FAILED = new ConcurrentHashMap<>();
        static final Map<String, List<String>> REMOVED = new ConcurrentHashMap<>();
        private final String job;
        private final String table;
        private final String url;
        private final long atRead;
        private transient List<String> passed;
        private transient Map<Long, Integer> atBarrier;
        private transient int completedAt;

        RemoveThenFail(String job, String table, String url, long atRead) {
            this.job = job;
            this.table = table;
            this.url = url;
            this.atRead = atRead;
            FAILED.put(job, new AtomicBoolean());
            REMOVED.put(job, new ArrayList<>());
        }

        @Override
        public void initializeState(FunctionInitializationContext context) {
            passed = new ArrayList<>();
            atBarrier = new HashMap<>();
            completedAt = -1;
        }

        @Override
        public void snapshotState(FunctionSnapshotContext context) {
            atBarrier.put(context.getCheckpointId(), passed.size());
        }

        @Override
        public void notifyCheckpointComplete(long checkpointId) {
            Integer at = atBarrier.remove(checkpointId);
            if (at != null) completedAt = at;
        }

        @Override
        public TextChange map(TextChange c) throws Exception {
            if (!c.op.equals("READ") || FAILED.get(job).get()) return c;
            passed.add(c.after.get("id"));
            if (passed.size() < atRead || completedAt < 0 || passed.size() - completedAt < 300) return c;
            FAILED.get(job).set(true);
            List<String> after = passed.subList(completedAt, passed.size());
            List<String> deleted = new ArrayList<>();
            List<String> moved = new ArrayList<>();
            for (int i = 0; i < after.size(); i += 3) {
                if (i % 5 == 0) moved.add(after.get(i));
                else deleted.add(after.get(i));
            }
            try (var conn = io.pgrepl.client.PgConnection.connect(io.pgrepl.client.ConnectionConfig.parse(url))
                    .toCompletableFuture().get(30, TimeUnit.SECONDS)) {
                conn.simpleQuery("BEGIN; DELETE FROM " + table + " WHERE id IN (" + String.join(", ", deleted) + ");"
                        + " UPDATE " + table + " SET id = id + 1000000, n = DEFAULT WHERE id IN (" + String.join(", ", moved) + "); COMMIT")
                        .toCompletableFuture().get(60, TimeUnit.SECONDS);
            }
            REMOVED.get(job).addAll(deleted);
            REMOVED.get(job).addAll(moved);
            throw new IllegalStateException("injected failure after removing " + deleted.size() + " rows and moving " + moved.size()
                    + " that were emitted after the last completed checkpoint");
        }
    }

    @ParameterizedTest(name = "PostgreSQL {0}")
    @MethodSource("versions")
    void rowsRemovedAfterTheCheckpointLeaveAnUpsertSink(int version) throws Exception {
        PgServer pg = server(version);
        String job = "ghost_rows_" + version;
        String table = "public.\"Ghost Rows\"";
        int rows = 20_000;
        Fixture.createTable(pg, table, rows);
        Map<String, Map<String, String>> sink = new ConcurrentHashMap<>();
        TABLES.put(job, sink);
        STREAMED.put(job, new AtomicBoolean());
        String url = pg.url(pg.superuser(), "postgres");
        PgreplSource<TextChange> source = PgreplSource.builder()
                .url(url)
                .slotName(job)
                .tables(table)
                .chunkSize(2_000)
                .fetchSize(500) // several pieces per split: a split is restored in the middle
                .build(new TextChange.Deserializer());
        Configuration conf = new Configuration();
        conf.set(RestartStrategyOptions.RESTART_STRATEGY, "fixed-delay");
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_ATTEMPTS, 3);
        conf.set(RestartStrategyOptions.RESTART_STRATEGY_FIXED_DELAY_DELAY, Duration.ofMillis(200));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment(conf);
        env.enableCheckpointing(1_000);
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "pgrepl").setParallelism(2)
                .map(new RemoveThenFail(job, table, url, rows / 4)).setParallelism(1)
                .sinkTo(new UpsertSink(job)).setParallelism(1);
        JobClient client = env.executeAsync(job);
        try {
            CompletableFuture<?> result = client.getJobExecutionResult();
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(4);
            // Pings until the stream runs (every split read), then one marker: once it arrives, the stream passed every piece.
            int ping = 0;
            while (!STREAMED.get(job).get()) {
                if (result.isDone()) result.get();
                assertTrue(System.nanoTime() < deadline, () -> "the stream did not start: " + sink.size() + " rows in the sink");
                if (RemoveThenFail.FAILED.get(job).get()) Fixture.sql(pg, "INSERT INTO " + table + " (id, memo) VALUES (" + (-1 - ping++) + ", 'ping')");
                Thread.sleep(500);
            }
            Fixture.sql(pg, "INSERT INTO " + table + " (id, amount, memo) VALUES (-1000000, 0, 'end')");
            while (!sink.containsKey("-1000000")) {
                if (result.isDone()) result.get();
                assertTrue(System.nanoTime() < deadline, "the end marker did not arrive");
                Thread.sleep(100);
            }
        } finally {
            client.cancel().get(1, TimeUnit.MINUTES);
        }
        List<String> removed = RemoveThenFail.REMOVED.get(job);
        assertTrue(removed.size() >= 100, "rows emitted after the checkpoint were removed: " + removed.size());
        Map<String, Map<String, String>> expected = Fixture.table(pg, table);
        List<String> ghosts = new ArrayList<>();
        List<String> diffs = new ArrayList<>();
        for (String id : new TreeMap<>(sink).keySet()) {
            if (!expected.containsKey(id)) ghosts.add(id);
        }
        for (Map.Entry<String, Map<String, String>> e : expected.entrySet()) {
            if (!e.getValue().equals(sink.get(e.getKey())) && diffs.size() < 10) diffs.add("id " + e.getKey() + ": table " + e.getValue() + ", sink " + sink.get(e.getKey()));
        }
        System.out.printf("upsert sink, PostgreSQL %d: %d rows removed or moved after the checkpoint; sink %d rows, table %d; %d ghosts%n",
                version, removed.size(), sink.size(), expected.size(), ghosts.size());
        assertTrue(ghosts.isEmpty(), () -> ghosts.size() + " rows removed from the table stay in the sink, of them "
                + ghosts.stream().filter(removed::contains).count() + " removed after the checkpoint: "
                + ghosts.subList(0, Math.min(10, ghosts.size())));
        assertTrue(diffs.isEmpty(), () -> "rows that differ: " + diffs);
    }
}
