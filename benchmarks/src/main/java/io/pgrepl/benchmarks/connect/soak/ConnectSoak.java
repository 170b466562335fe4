package io.pgrepl.benchmarks.connect.soak;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.Row;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.testkit.PgServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * The Connect soak: pgrepl's connector in exactly-once mode ({@code exactly.once.source.support=enabled},
 * {@code transaction.boundary=connector} and the converters of the shipped example config, heartbeats every
 * second, a producer {@code transaction.timeout.ms} of {@code --transaction-timeout-ms}) on two distributed
 * Connect workers, each a JVM of its own ({@link SoakWorker}), and one KRaft broker in a JVM of its own ({@link SoakBroker}). An initial
 * snapshot of {@code --initial-rows} rows, then {@link SoakWorkload}'s mixed changes until {@code --changes}.
 * Faults: every {@code --kill-every} seconds the worker running the task is SIGKILLed and started again
 * right away (the first kill waits for the snapshot to end); at 60% of the changes (or each of {@code --broker-restart-at}), the broker is
 * stopped and restarted; once, at 30%, the database stays idle for {@code --idle} seconds, longer than the
 * transaction timeout. A task that fails is restarted through REST and counted. A {@link HangingTransactionWatchdog}
 * looks every 10 s for a Kafka transaction the coordinator forgot (a broker restart can leave one) and aborts
 * it, as an operator would ({@code --no-watchdog} leaves it hanging). At the end every topic is
 * read with read_committed and rebuilt ({@link TopicRebuild}) and compared with the source tables.
 *
 * <pre>
 * mvn -B -q -ntp -pl benchmarks -am package -DskipTests
 * java -Xmx1500m -cp benchmarks/target/benchmarks.jar io.pgrepl.benchmarks.connect.soak.ConnectSoak --changes 2000000 --kill-every 60
 * </pre>
 * Exit status 0 only if every table is exact, with no duplicate and no anomaly.
 */
public final class ConnectSoak {
    private ConnectSoak() {}

    static final String CONNECTOR = "soak";
    static final String PREFIX = "soak";

    static final class Options {
        long changes = 2_000_000;
        int killEvery = 60;
        int idleSeconds = 20;
        int transactionTimeoutMs = 10_000;
        int major = 18;
        int initialRows = 20_000;
        int bigEvery = 400;
        long maxLag = 100_000;
        int sampleEvery = 30;
        String workerHeap = "768m";
        Path dir = Path.of("target", "connect-soak");
        long timeoutMinutes = 120;
        /** Added to the transaction timeout before an open transaction the coordinator forgot counts as hanging. */
        long hangingMarginMs = 30_000;
        boolean watchdog = true;
        /** When the broker is restarted, in percent of the changes written. */
        List<Integer> brokerRestartAt = List.of(60);

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--changes" -> o.changes = Long.parseLong(args[++i].replace("_", ""));
                    case "--kill-every" -> o.killEvery = Integer.parseInt(args[++i]);
                    case "--idle" -> o.idleSeconds = Integer.parseInt(args[++i]);
                    case "--transaction-timeout-ms" -> o.transactionTimeoutMs = Integer.parseInt(args[++i]);
                    case "--major" -> o.major = Integer.parseInt(args[++i]);
                    case "--initial-rows" -> o.initialRows = Integer.parseInt(args[++i]);
                    case "--big-every" -> o.bigEvery = Integer.parseInt(args[++i]);
                    case "--max-lag" -> o.maxLag = Long.parseLong(args[++i].replace("_", ""));
                    case "--sample-every" -> o.sampleEvery = Integer.parseInt(args[++i]);
                    case "--worker-heap" -> o.workerHeap = args[++i];
                    case "--dir" -> o.dir = Path.of(args[++i]);
                    case "--timeout-minutes" -> o.timeoutMinutes = Long.parseLong(args[++i]);
                    case "--hanging-margin-ms" -> o.hangingMarginMs = Long.parseLong(args[++i]);
                    case "--no-watchdog" -> o.watchdog = false;
                    case "--broker-restart-at" -> o.brokerRestartAt = java.util.Arrays.stream(args[++i].split(","))
                            .map(Integer::parseInt).sorted().toList();
                    default -> throw new IllegalArgumentException("unknown option " + args[i] + " (--changes N --kill-every S"
                            + " --idle S --transaction-timeout-ms MS --major M --initial-rows N --big-every TXS --max-lag N"
                            + " --sample-every S --worker-heap SIZE --dir DIR --timeout-minutes M --hanging-margin-ms MS --no-watchdog"
                            + " --broker-restart-at PCT[,PCT...])");
                }
            }
            if (o.idleSeconds * 1000L <= o.transactionTimeoutMs) {
                throw new IllegalArgumentException("--idle must outlast --transaction-timeout-ms");
            }
            return o;
        }
    }

    public static void main(String[] args) throws Exception {
        // The in-process broker logs every partition and config at INFO: only its warnings here
        // (the workers' own logs, with the task's lines, go to their files).
        if (System.getProperty("org.slf4j.simpleLogger.defaultLogLevel") == null) {
            System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn");
        }
        Options o = Options.parse(args);
        boolean ok;
        try (PgServer pg = PgServer.builder().version(o.major).setting("max_wal_size", "4GB")
                .setting("checkpoint_timeout", "30min").start()) {
            ok = new ConnectSoak.Run(o, pg).run();
        }
        System.out.println(ok ? "RESULT: exact" : "RESULT: MISMATCH");
        System.exit(ok ? 0 : 1); // the embedded broker leaves non-daemon threads behind
    }

    /** One soak run: its servers, workers and tallies. */
    static final class Run {
        private final Options o;
        private final PgServer pg;
        private final ConnectRest rest = new ConnectRest();
        /** The live incarnation of w1 and of w2 (replaced from the restarting thread). */
        private final List<SoakWorker> workers = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final List<SoakWorker> all = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final Map<String, Integer> incarnations = new java.util.concurrent.ConcurrentHashMap<>();
        private final Map<String, long[]> peakHeap = java.util.Collections.synchronizedMap(new LinkedHashMap<>());
        private SoakBroker kafka;
        private Map<String, String> workerProps;
        private int kills;
        private int brokerRestarts;
        private int taskFailures;
        private final List<String> failureTraces = new ArrayList<>();
        private HangingTransactionWatchdog watchdog;
        private long startNanos;

        Run(Options o, PgServer pg) {
            this.o = o;
            this.pg = pg;
        }

        boolean run() throws Exception {
            Files.createDirectories(o.dir);
            pg.sql("postgres", SoakWorkload.DDL);
            pg.sql("postgres", SoakWorkload.initialRows(o.initialRows));
            long t0 = System.nanoTime();
            kafka = SoakBroker.start(o.dir.resolve("broker"));
            startNanos = System.nanoTime();
            java.util.concurrent.ScheduledExecutorService watch = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "connect-soak-hanging-transactions");
                t.setDaemon(true);
                return t;
            });
            workerProps = workerProps(kafka.bootstrap());
            for (String w : List.of("w1", "w2")) workers.add(startWorker(w));
            System.out.printf("Connect soak: %,d changes, PostgreSQL %s, a worker killed every %d s, idle %d s"
                            + " (transaction.timeout.ms %d); broker and 2 workers up in %.1f s%n", o.changes, pg.version(),
                    o.killEvery, o.idleSeconds, o.transactionTimeoutMs, (System.nanoTime() - t0) / 1e9);
            rest.putConfig(workers.get(0), CONNECTOR, connectorConfig());
            ConnectionConfig direct = ConnectionConfig.builder().host(pg.host()).port(pg.port()).user(pg.superuser().name())
                    .password(pg.superuser().password()).database("postgres").sslMode(SslMode.DISABLE).build();
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap(),
                    AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000", AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000"));
                    Admin watchAdmin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap(),
                            AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "20000",
                            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000"))) {
                watchdog = new HangingTransactionWatchdog(watchAdmin, Duration.ofMillis(o.transactionTimeoutMs),
                        Duration.ofMillis(o.hangingMarginMs), line -> System.out.printf("t=%ds %s%n",
                                (System.nanoTime() - startNanos) / 1_000_000_000L, line));
                if (o.watchdog) watch.scheduleWithFixedDelay(watchdog::sweep, 10, 10, TimeUnit.SECONDS);
                long[] delivered = {0};
                SoakWorkload writer = new SoakWorkload(direct, o.changes, o.bigEvery, o.maxLag, () -> delivered[0],
                        o.changes * 3 / 10, o.idleSeconds * 1000L);
                Thread wt = new Thread(writer, "connect-soak-writer");
                awaitSnapshotDone(Duration.ofMinutes(10));
                long start = System.nanoTime();
                startNanos = start;
                wt.start();
                drive(writer, admin, delivered, start);
                wt.join();
                if (writer.failure != null) throw new IllegalStateException("the writer failed", writer.failure);
                double writeSeconds = (System.nanoTime() - start) / 1e9;
                awaitEndMarker(Duration.ofMinutes(o.timeoutMinutes));
                double deliveredSeconds = (System.nanoTime() - start) / 1e9;
                samplePeakHeap();
                for (SoakWorker w : all) w.close();
                // The watchdog stays on while the topics are read back read_committed: a hang would stall that too.
                return verify(direct, writer, writeSeconds, deliveredSeconds);
            } finally {
                watch.shutdownNow();
                for (SoakWorker w : all) w.close();
                kafka.close();
            }
        }

        private Map<String, String> workerProps(String bootstrap) {
            Map<String, String> p = new HashMap<>();
            p.put("bootstrap.servers", bootstrap);
            p.put("group.id", "soak-group");
            p.put("config.storage.topic", "soak-configs");
            p.put("offset.storage.topic", "soak-offsets");
            p.put("status.storage.topic", "soak-status");
            p.put("offset.storage.partitions", "1");
            for (String s : List.of("config", "offset", "status")) p.put(s + ".storage.replication.factor", "1");
            p.put("session.timeout.ms", "6000"); // the broker's smallest: a killed worker's task moves soon
            p.put("heartbeat.interval.ms", "1000");
            p.put("scheduled.rebalance.max.delay.ms", "1000");
            p.put("plugin.discovery", "service_load");
            p.put("exactly.once.source.support", "enabled");
            p.put("connector.client.config.override.policy", "All");
            p.put("offset.flush.interval.ms", "1000");
            p.put("key.converter", "org.apache.kafka.connect.json.JsonConverter");
            p.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
            return p;
        }

        /** The shipped example's settings (examples/kafka-connect/pgrepl-source.json) for this server, without TLS. */
        private Map<String, String> connectorConfig() {
            Map<String, String> c = new HashMap<>();
            c.put("connector.class", "io.pgrepl.kafka.connect.PgreplSourceConnector");
            c.put("tasks.max", "1");
            c.put("database.url", "postgresql://" + pg.superuser().name() + "@127.0.0.1:" + pg.port() + "/postgres");
            c.put("database.password", pg.superuser().password());
            c.put("slot.name", "soak_slot");
            c.put("publication.name", "soak_pub");
            c.put("publication.autocreate.mode", "disabled");
            c.put("snapshot.mode", "initial");
            c.put("topic.prefix", PREFIX);
            c.put("heartbeat.interval.ms", "1000");
            c.put("streaming", "on");
            c.put("tombstones.on.delete", "true");
            c.put("topic.creation.default.replication.factor", "1");
            c.put("topic.creation.default.partitions", "1");
            c.put("exactly.once.support", "requested");
            c.put("transaction.boundary", "connector");
            c.put("key.converter", "io.pgrepl.kafka.connect.CachedSchemaJsonConverter");
            c.put("key.converter.schemas.enable", "true");
            c.put("value.converter", "io.pgrepl.kafka.connect.CachedSchemaJsonConverter");
            c.put("value.converter.schemas.enable", "true");
            c.put("producer.override.batch.size", "262144");
            c.put("producer.override.linger.ms", "10");
            c.put("producer.override.compression.type", "lz4");
            c.put("producer.override.transaction.timeout.ms", Integer.toString(o.transactionTimeoutMs));
            return c;
        }

        private SoakWorker startWorker(String name) throws Exception {
            int n = incarnations.merge(name, 1, Integer::sum) - 1;
            SoakWorker w = SoakWorker.start(workerProps, o.dir, name + "-" + n, o.workerHeap);
            all.add(w);
            return w;
        }

        /** The monitor: faults, failed-task restarts, progress lines, until the writer is done. */
        private void drive(SoakWorkload writer, Admin admin, long[] delivered, long start) throws Exception {
            long nextKill = System.nanoTime() + TimeUnit.SECONDS.toNanos(o.killEvery);
            long nextSample = System.nanoTime();
            int brokerRestartsDone = 0;
            java.util.concurrent.CompletableFuture<Void> restarting = java.util.concurrent.CompletableFuture.completedFuture(null);
            long deadline = start + TimeUnit.MINUTES.toNanos(o.timeoutMinutes);
            // The broker restart is not skipped when the writer ends first (a slow box).
            while (!writer.done || brokerRestartsDone < o.brokerRestartAt.size() || !restarting.isDone()) {
                if (System.nanoTime() > deadline) throw new IllegalStateException("timed out after " + o.timeoutMinutes + " min");
                delivered[0] = dataRecords(admin, delivered[0]);
                ConnectRest.TaskState t = taskState();
                if (t != null && t.state().equals("FAILED")) {
                    taskFailures++;
                    failureTraces.add(String.format("t=%ds %s", (System.nanoTime() - start) / 1_000_000_000L, t.trace()));
                    System.out.println("task FAILED (restarting it): " + t.trace());
                    rest.restartTask(workers.get(0), CONNECTOR);
                }
                long now = System.nanoTime();
                if (brokerRestartsDone < o.brokerRestartAt.size()
                        && writer.changes.get() >= o.changes * o.brokerRestartAt.get(brokerRestartsDone) / 100) {
                    brokerRestartsDone++;
                    long b0 = System.nanoTime();
                    kafka.restart();
                    brokerRestarts++;
                    System.out.printf("t=%ds broker restarted (stopped and back in %.1f s)%n",
                            (b0 - start) / 1_000_000_000L, (System.nanoTime() - b0) / 1e9);
                    nextKill = Math.max(nextKill, System.nanoTime() + TimeUnit.SECONDS.toNanos(o.killEvery / 2));
                } else if (now >= nextKill && !writer.idle && t != null && t.state().equals("RUNNING")
                        && restarting.isDone()) {
                    int victim = workers.get(0).is(t.workerId()) ? 0 : workers.get(1).is(t.workerId()) ? 1 : -1;
                    if (victim >= 0) {
                        SoakWorker w = workers.get(victim);
                        samplePeakHeap();
                        w.kill();
                        kills++;
                        System.out.printf("t=%ds killed %s (running the task)%n", (System.nanoTime() - start) / 1_000_000_000L,
                                w.name);
                        // Started again in the background: on a loaded box a worker takes a minute to come up,
                        // and the monitor keeps watching the task meanwhile.
                        String base = w.name.substring(0, w.name.indexOf('-'));
                        restarting = java.util.concurrent.CompletableFuture.runAsync(() -> {
                            try {
                                workers.set(victim, startWorker(base));
                            } catch (Exception e) {
                                throw new IllegalStateException("restarting " + base, e);
                            }
                        });
                    }
                    nextKill = System.nanoTime() + TimeUnit.SECONDS.toNanos(o.killEvery);
                }
                if (restarting.isCompletedExceptionally()) restarting.join();
                if (now >= nextSample) {
                    samplePeakHeap();
                    System.out.printf("t=%4ds written=%,11d records=%,11d kills=%d task=%s%s%n",
                            (now - start) / 1_000_000_000L, writer.changes.get(), delivered[0], kills,
                            t == null ? "?" : t.state(), writer.idle ? " (idle)" : "");
                    nextSample = now + TimeUnit.SECONDS.toNanos(o.sampleEvery);
                }
                Thread.sleep(500);
            }
        }

        private ConnectRest.TaskState taskState() {
            for (SoakWorker w : workers) {
                ConnectRest.TaskState t = rest.task(w, CONNECTOR);
                if (t != null) return t;
            }
            return null;
        }

        /** The data topics' end offsets summed (uncommitted included): pacing only; the last value while the broker is away. */
        private long dataRecords(Admin admin, long last) {
            try {
                Map<TopicPartition, OffsetSpec> q = new HashMap<>();
                for (String t : List.of("soak_items", "soak_accounts")) q.put(new TopicPartition(topic(t), 0), OffsetSpec.latest());
                long sum = 0;
                for (var r : admin.listOffsets(q).all().get(10, TimeUnit.SECONDS).values()) sum += r.offset();
                return sum;
            } catch (Exception notNow) {
                return last;
            }
        }

        static String topic(String table) {
            return PREFIX + ".public." + table;
        }

        private void samplePeakHeap() {
            for (SoakWorker w : all) peakHeap.put(w.name, w.heapPeaks());
        }

        private void awaitSnapshotDone(Duration timeout) throws Exception {
            long end = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < end) {
                for (SoakWorker w : all) {
                    if (Files.readString(w.log).contains("initial snapshot done")) return;
                }
                Thread.sleep(500);
            }
            throw new IllegalStateException("the initial snapshot did not end within " + timeout);
        }

        private void awaitEndMarker(Duration timeout) throws Exception {
            long end = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() < end) {
                ConnectRest.TaskState t = taskState();
                if (t != null && t.state().equals("FAILED")) {
                    taskFailures++;
                    failureTraces.add("draining: " + t.trace());
                    rest.restartTask(workers.get(0), CONNECTOR);
                }
                if (TopicRebuild.read(kafka.bootstrap(), List.of(topic("soak_end"))).endMarker) return;
                Thread.sleep(2000);
            }
            throw new IllegalStateException("the end marker did not arrive (read_committed) within " + timeout);
        }

        private boolean verify(ConnectionConfig direct, SoakWorkload writer, double writeSeconds, double deliveredSeconds)
                throws Exception {
            long r0 = System.nanoTime();
            TopicRebuild r = TopicRebuild.read(kafka.bootstrap(),
                    SoakWorkload.TABLES.stream().map(ConnectSoak.Run::topic).toList());
            Map<Long, TopicRebuild.Item> items = new HashMap<>();
            Map<Integer, TopicRebuild.Account> accounts = new HashMap<>();
            try (PgConnection c = PgConnection.connect(direct).toCompletableFuture().get(60, TimeUnit.SECONDS)) {
                for (Row row : c.query("SELECT id, ver, qty, note, md5(big) FROM soak_items").toCompletableFuture()
                        .get(600, TimeUnit.SECONDS).rows()) {
                    items.put(Long.parseLong(row.get(0)), new TopicRebuild.Item(Long.parseLong(row.get(1)),
                            Integer.parseInt(row.get(2)), row.get(3), row.get(4)));
                }
                for (Row row : c.query("SELECT k, ver, n FROM soak_accounts").toCompletableFuture().get(60, TimeUnit.SECONDS).rows()) {
                    accounts.put(Integer.parseInt(row.get(0)), new TopicRebuild.Account(Long.parseLong(row.get(1)),
                            Long.parseLong(row.get(2))));
                }
            }
            List<String> diffs = new ArrayList<>();
            long itemDiffs = TopicRebuild.compare(items, r.items, "soak_items", diffs, 10);
            long accountDiffs = TopicRebuild.compare(accounts, r.accounts, "soak_accounts", diffs, 10);
            LogTally logs = LogTally.of(all);
            System.out.printf("written: %,d changes in %,d transactions over %.0f s; all delivered (read_committed) at %.0f s"
                            + " (%,.0f changes/s)%n", writer.changes.get(), writer.transactions.get(), writeSeconds,
                    deliveredSeconds, writer.changes.get() / deliveredSeconds);
            System.out.printf("read back: %,d records %s, ops %s, in %.0f s; %,d key-change creates took their unchanged"
                            + " TOASTed value from the old key's row%n", r.records, r.recordsPerTopic, r.opCounts,
                    (System.nanoTime() - r0) / 1e9, r.keyChangeCarries);
            System.out.printf("faults: %d worker SIGKILLs, %d broker restart(s), 1 idle spell of %d s (transaction.timeout.ms %d)%n",
                    kills, brokerRestarts, o.idleSeconds, o.transactionTimeoutMs);
            System.out.printf("task: %d starts, %d stream reconnects, %d failed (restarted through REST), %d graceful-stop"
                    + " failures%n", logs.taskStarts(), logs.reconnects(), taskFailures, logs.gracefulStopFailures());
            for (String f : failureTraces) System.out.println("  failed: " + f);
            System.out.printf("hanging Kafka transactions: %d found, %d aborted (watchdog %s, %d passes, %d passes"
                            + " without an answer)%n", watchdog.found(), watchdog.aborted(), o.watchdog ? "on" : "off",
                    watchdog.passes(), watchdog.failedPasses());
            for (var e : watchdog.events) {
                System.out.printf("  %s: %s producer %d epoch %d from offset %,d, %s%s%n",
                        e.at(), e.hanging().partition(), e.hanging().producerId(), e.hanging().producerEpoch(),
                        e.hanging().startOffset(), e.detail(), e.aborted() ? ", aborted" : "");
            }
            for (var e : peakHeap.entrySet()) {
                System.out.printf("peak heap %s: %.0f MB after GC, %.0f MB in use%n", e.getKey(), e.getValue()[0] / 1048576.0,
                        e.getValue()[1] / 1048576.0);
            }
            System.out.printf("source: %,d items, %,d accounts; rebuilt: %,d items, %,d accounts; differing rows: %d items,"
                            + " %d accounts; duplicates (read_committed): %d; anomalies: %d; end marker: %s%n", items.size(),
                    accounts.size(), r.items.size(), r.accounts.size(), itemDiffs, accountDiffs, r.duplicates, r.anomalies,
                    r.endMarker);
            for (String d : diffs) System.out.println("  " + d);
            for (String x : r.examples) System.out.println("  " + x);
            return itemDiffs == 0 && accountDiffs == 0 && r.duplicates == 0 && r.anomalies == 0 && r.endMarker;
        }
    }
}
