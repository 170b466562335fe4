package io.pgrepl.benchmarks.connect;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.testkit.PgServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.runtime.rest.entities.ConfigInfos;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;

/**
 * The incremental snapshot benchmark: an incremental snapshot of one 1M-row, 5-column table on one PostgreSQL 17
 * server, by Debezium 3.6.1's connector and by pgrepl, side by side in one run, legs alternating.
 * <ul>
 *   <li>{@code debezium}: Debezium's PostgreSQL connector on an in-process Connect worker and KRaft broker
 *       ({@code snapshot.mode=no_data}, signal table {@code public.dbz_signal} in Debezium's shape and in the
 *       publication, {@code incremental.snapshot.chunk.size}); timed from the {@code execute-snapshot} row's
 *       insert until the table's topic holds every row; CPU sampled on the worker's threads (see
 *       {@link CpuSample});</li>
 *   <li>{@code connector}: pgrepl's connector on the same worker with the same Debezium-style keys
 *       ({@code signal.enabled.channels=source}); skipped, with the reason printed, while the worker
 *       refuses those keys;</li>
 *   <li>{@code engine}: pgrepl's engine through the handler face in its own JVM ({@link EngineProcess}), the
 *       same signal row, timed until the engine reports the table completed;</li>
 *   <li>{@code copy}: pgrepl's exported-snapshot copy of the table in that JVM, one worker.</li>
 * </ul>
 * Every leg must deliver exactly the table's rows (the topic's end offset; the handler's count), or the
 * harness fails.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar io.pgrepl.benchmarks.connect.IncrementalSideBySide \
 *     --rows 1000000 --rounds 2 --chunks 1024,8192 --legs debezium,engine,copy,connector</pre>
 */
public final class IncrementalSideBySide {
    static final String SIGNAL_TABLE = "public.dbz_signal";
    static final String TABLE = "public.t";
    static final String PUBLICATION = "inc_pub";
    static final String COPY_PUBLICATION = "copy_pub";
    static final List<String> LEGS = List.of("debezium", "connector", "connector-tuned", "engine", "copy");

    private IncrementalSideBySide() {}

    static final class Options {
        int version = 17;
        int rows = 1_000_000;
        int rounds = 2;
        List<Integer> chunks = List.of(1024, 8192);
        List<Integer> workers = List.of(1);
        List<String> legs = Arrays.asList(System.getProperty("legs", String.join(",", LEGS)).split(","));
        /**
         * The server's {@code synchronous_commit}. The test kit's default is off; here it is PostgreSQL's
         * own default, on, unless asked: off delays every WAL record a walsender may send by up to
         * {@code wal_writer_delay} (200 ms), and Debezium waits for each chunk's close watermark, an
         * ordinary INSERT, to come back through the stream (pgrepl's watermark messages are flushed).
         */
        String synchronousCommit = "on";
        /** {@code --debezium-config K=V}, repeatable: added to Debezium's config only (e.g. {@code poll.interval.ms}). */
        Map<String, String> debeziumConfig = new java.util.LinkedHashMap<>();
        /**
         * {@code --tuned-config K=V}, repeatable: the {@code connector-tuned} leg's additions to the
         * connector leg's config; by default the producer overrides the example config recommends.
         */
        Map<String, String> tunedConfig = new java.util.LinkedHashMap<>(Map.of("producer.override.batch.size", "262144",
                "producer.override.linger.ms", "10", "producer.override.compression.type", "lz4"));
        private boolean tunedGiven;
        boolean verify;
        long timeoutSeconds = 1800;
        Path out;

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--version" -> o.version = Integer.parseInt(args[++i]);
                    case "--rows" -> o.rows = Integer.parseInt(args[++i]);
                    case "--rounds" -> o.rounds = Integer.parseInt(args[++i]);
                    case "--chunks" -> o.chunks = ints(args[++i]);
                    case "--workers" -> o.workers = ints(args[++i]);
                    case "--legs" -> o.legs = List.of(args[++i].split(","));
                    case "--synchronous-commit" -> o.synchronousCommit = args[++i];
                    case "--debezium-config" -> {
                        String pair = args[++i];
                        int eq = pair.indexOf('=');
                        if (eq < 1) throw new IllegalArgumentException("--debezium-config KEY=VALUE, not " + pair);
                        o.debeziumConfig.put(pair.substring(0, eq), pair.substring(eq + 1));
                    }
                    case "--tuned-config" -> {
                        String pair = args[++i];
                        int eq = pair.indexOf('=');
                        if (eq < 1) throw new IllegalArgumentException("--tuned-config KEY=VALUE, not " + pair);
                        if (!o.tunedGiven) o.tunedConfig.clear();
                        o.tunedGiven = true;
                        o.tunedConfig.put(pair.substring(0, eq), pair.substring(eq + 1));
                    }
                    case "--verify" -> o.verify = true;
                    case "--timeout" -> o.timeoutSeconds = Long.parseLong(args[++i]);
                    case "--out" -> o.out = Path.of(args[++i]);
                    default -> throw new IllegalArgumentException("unknown option " + args[i]
                            + " (--version N --rows N --rounds N --chunks 1024,8192 --workers 1,2"
                            + " --legs debezium,connector,connector-tuned,engine,copy --synchronous-commit on|off"
                            + " --debezium-config KEY=VALUE ... --tuned-config KEY=VALUE ... --verify --timeout S --out FILE.tsv)");
                }
            }
            for (String l : o.legs) {
                if (!LEGS.contains(l)) throw new IllegalArgumentException("unknown leg " + l + " (" + LEGS + ")");
            }
            return o;
        }

        private static List<Integer> ints(String csv) {
            return Arrays.stream(csv.split(",")).map(Integer::parseInt).toList();
        }
    }

    /**
     * One leg's run. {@code records}: what it delivered (the topic's end offset a second after it held
     * every row, or the handler's count); {@code distinctIds}: distinct ids read back ({@code --verify}),
     * else -1. CPU in seconds by {@link CpuSample#since} kind; the engine's and copy's only {@code process}.
     */
    record Leg(int round, String leg, int chunk, int workers, long rows, long records, long distinctIds, double seconds,
               Map<String, Double> cpu) {
        double rowsPerSecond() {
            return rows / seconds;
        }

        /** CPU ns per row of one kind; NaN where the leg has no such split. */
        double nanosPerRow(String kind) {
            Double s = cpu.get(kind);
            return s == null ? Double.NaN : s * 1e9 / rows;
        }
    }

    record Outcome(String pgVersion, List<Leg> legs, List<String> skipped) {}

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args);
        Outcome outcome = run(o);
        System.out.println(IncrementalReport.table(outcome));
        System.out.println(IncrementalReport.ratios(outcome));
        if (o.out != null) {
            Files.writeString(o.out, IncrementalReport.tsv(outcome));
            System.out.println("raw runs written to " + o.out);
        }
        System.exit(0); // the embedded cluster leaves non-daemon threads behind
    }

    static Outcome run(Options o) throws Exception {
        try (PgServer pg = PgServer.builder().version(o.version).setting("max_replication_slots", "40")
                .setting("max_wal_senders", "40").setting("max_wal_size", "8GB").setting("checkpoint_timeout", "1h")
                .setting("synchronous_commit", o.synchronousCommit).start();
             PgConnection sql = await(PgConnection.connect(config(pg)))) {
            long t0 = System.nanoTime();
            pg.sql("postgres", "CREATE TABLE t (id int8 PRIMARY KEY, t text, n numeric, ts timestamptz, j jsonb);"
                    + " INSERT INTO t SELECT g, 'row ' || g, g * 1.5, '2024-01-01'::timestamptz + g * interval '1 s',"
                    + " jsonb_build_object('k', g) FROM generate_series(1, " + o.rows + ") g;"
                    + " CREATE TABLE dbz_signal (id varchar(42) PRIMARY KEY, type varchar(32) NOT NULL, data varchar(2048));"
                    + " CREATE PUBLICATION " + PUBLICATION + " FOR TABLE t, dbz_signal;"
                    + " CREATE PUBLICATION " + COPY_PUBLICATION + " FOR TABLE t");
            pg.sql("postgres", "VACUUM ANALYZE t");
            System.out.printf("PostgreSQL %s (synchronous_commit=%s), table t of %,d rows loaded in %.1f s; JDK %s, %d CPUs%n",
                    pg.version(), o.synchronousCommit, o.rows, (System.nanoTime() - t0) / 1e9, System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
            boolean needsConnect = o.legs.contains("debezium") || o.legs.stream().anyMatch(l -> l.startsWith("connector"));
            EmbeddedConnectCluster connect = needsConnect ? ConnectSideBySide.startConnect(true) : null;
            List<Leg> legs = new ArrayList<>();
            List<String> skipped = new ArrayList<>();
            try (TopicWatch watch = connect == null ? null : new TopicWatch(connect.kafka().bootstrapServers());
                 Engine engine = o.legs.contains("engine") || o.legs.contains("copy") ? new Engine(pg) : null) {
                List<String> legOrder = new ArrayList<>(o.legs);
                boolean plain = legOrder.remove("connector");
                boolean tuned = legOrder.remove("connector-tuned");
                if (plain || tuned) {
                    String why = connectorRefusal(connect, pg);
                    int at = legOrder.indexOf("debezium") + 1;
                    if (why != null) skipped.add("connector: " + why);
                    else {
                        if (tuned) legOrder.add(at, "connector-tuned");
                        if (plain) legOrder.add(at, "connector");
                    }
                }
                boolean copy = legOrder.remove("copy");
                for (int r = 0; r < o.rounds; r++) {
                    if (copy && r % 2 == 0) legs.add(engine.copy(r, o.rows));
                    for (int chunk : o.chunks) {
                        List<String> order = new ArrayList<>(legOrder);
                        if (r % 2 == 1) Collections.reverse(order);
                        for (String leg : order) {
                            if (leg.equals("engine")) {
                                for (int w : o.workers) legs.add(engine.incremental(r, chunk, w, o.rows));
                            } else {
                                legs.add(viaConnect(pg, sql, connect, watch, o, r, leg, chunk));
                            }
                        }
                    }
                    if (copy && r % 2 == 1) legs.add(engine.copy(r, o.rows));
                }
            } finally {
                if (connect != null) connect.stop();
            }
            return new Outcome(pg.version(), legs, skipped);
        }
    }

    /** Debezium's {@code execute-snapshot} signal row for one table (the engine reads the same shape). */
    static String signalInsert(String id, String table) {
        return "INSERT INTO " + SIGNAL_TABLE + " VALUES ('" + id + "', 'execute-snapshot', "
                + "'{\"data-collections\": [\"" + table + "\"], \"type\": \"incremental\"}')";
    }

    /** Both connectors' incremental-snapshot keys, Debezium's names, on top of {@link Connectors#config}. */
    static Map<String, String> connectorConfig(String leg, PgServer pg, String name, int chunk) {
        String connector = leg.equals("debezium") ? Connectors.DEBEZIUM : Connectors.PGREPL;
        // Debezium's guide: the signal table in the publication and in table.include.list.
        Map<String, String> c = Connectors.config(connector, pg, name, name, PUBLICATION, "public\\.t,public\\.dbz_signal", true);
        c.put("snapshot.mode", "no_data");
        c.put("signal.enabled.channels", "source");
        c.put("signal.data.collection", SIGNAL_TABLE);
        c.put("incremental.snapshot.chunk.size", Integer.toString(chunk));
        return c;
    }

    /** Null when the worker accepts pgrepl's connector with Debezium's incremental keys, else why not. */
    private static String connectorRefusal(EmbeddedConnectCluster connect, PgServer pg) {
        Map<String, String> c = connectorConfig("connector", pg, "probe", 1024);
        c.put("name", "probe"); // the worker's validation counts a missing name as an error
        ConfigInfos v = connect.validateConnectorConfig(c.get("connector.class"), c);
        List<String> known = v.configs().stream().map(i -> i.configKey() == null ? "" : i.configKey().name()).toList();
        for (String key : List.of("signal.data.collection", "signal.enabled.channels", "incremental.snapshot.chunk.size")) {
            if (!known.contains(key)) return "the connector defines no " + key;
        }
        if (v.errorCount() == 0) return null;
        return v.configs().stream().filter(i -> !i.configValue().errors().isEmpty())
                .map(i -> i.configValue().name() + ": " + i.configValue().errors()).toList().toString();
    }

    private static Leg viaConnect(PgServer pg, PgConnection sql, EmbeddedConnectCluster connect, TopicWatch watch,
                                  Options o, int round, String leg, int chunk) throws Exception {
        String name = (leg.equals("debezium") ? "dbz" : leg.equals("connector") ? "pgr" : "pgt") + "_c" + chunk + "_r" + round;
        Map<String, String> config = connectorConfig(leg, pg, name, chunk);
        if (leg.equals("debezium")) config.putAll(o.debeziumConfig);
        if (leg.equals("connector-tuned")) config.putAll(o.tunedConfig);
        await(sql.query("SELECT pg_create_logical_replication_slot('" + name + "', 'pgoutput')"));
        connect.configureConnector(name, config);
        awaitSlotActive(sql, name, Duration.ofMinutes(2));
        String topic = name + "." + TABLE;
        System.gc();
        CpuSample before = CpuSample.take();
        long start = System.nanoTime();
        await(sql.query(signalInsert(name, TABLE)));
        TopicWatch.Arrival a = watch.await(topic, o.rows, start, Duration.ofSeconds(o.timeoutSeconds), 50, 0);
        CpuSample after = CpuSample.take();
        Thread.sleep(1000); // late duplicates would show in the end offset
        long records = watch.endOffset(topic);
        long distinct = -1;
        if (o.verify) {
            long[] d = watch.distinctIds(topic, o.rows);
            distinct = d[0];
            records = d[1];
        }
        connect.deleteConnector(name);
        ConnectSideBySide.dropSlot(pg, name);
        return report(new Leg(round, leg, chunk, 1, o.rows, records, distinct, a.allNanos() / 1e9, after.since(before, name)));
    }

    private static void awaitSlotActive(PgConnection sql, String slot, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!"t".equals(await(sql.query("SELECT active FROM pg_replication_slots WHERE slot_name = '" + slot + "'"))
                .singleRow().get(0))) {
            if (System.nanoTime() > deadline) throw new IllegalStateException("slot " + slot + " not streaming after " + timeout);
            Thread.sleep(50);
        }
    }

    private static Leg report(Leg l) {
        if (l.records() != l.rows()) {
            throw new IllegalStateException(l.leg() + " chunk " + l.chunk() + " delivered " + l.records() + " records, not " + l.rows());
        }
        if (l.distinctIds() >= 0 && l.distinctIds() != l.rows()) {
            throw new IllegalStateException(l.leg() + " chunk " + l.chunk() + " delivered " + l.distinctIds() + " distinct ids");
        }
        System.out.printf("round %d %-9s chunk %5d workers %d: %,d rows in %.2f s, %,.0f rows/s; CPU ns/row process %.0f%s%n",
                l.round(), l.leg(), l.chunk(), l.workers(), l.rows(), l.seconds(), l.rowsPerSecond(), l.nanosPerRow("process"),
                l.cpu().containsKey("connector") ? String.format(", connector %.0f (own %.0f, task %.0f, producer %.0f)",
                        l.nanosPerRow("connector"), l.nanosPerRow("own"), l.nanosPerRow("task"), l.nanosPerRow("producer")) : "");
        return l;
    }

    static ConnectionConfig config(PgServer pg) {
        return ConnectionConfig.builder().host(pg.host()).port(pg.port()).user(pg.superuser().name())
                .password(pg.superuser().password()).database("postgres").sslMode(SslMode.DISABLE)
                .replication(ReplicationMode.NONE).build();
    }

    private static <T> T await(java.util.concurrent.CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(5, TimeUnit.MINUTES);
    }

    /** The {@link EngineProcess} child: one JVM for every engine and copy leg of the run. */
    static final class Engine implements AutoCloseable {
        private final Process process;
        private final Writer commands;
        private final BufferedReader answers;

        Engine(PgServer pg) throws Exception {
            ProcessBuilder pb = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), EngineProcess.class.getName(), pg.host(),
                    Integer.toString(pg.port()), pg.superuser().name(), TABLE, PUBLICATION, COPY_PUBLICATION)
                    .redirectError(ProcessBuilder.Redirect.INHERIT);
            pb.environment().put(EngineProcess.PASSWORD_ENV, pg.superuser().password());
            process = pb.start();
            commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
            answers = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        }

        Leg incremental(int round, int chunk, int workers, long rows) throws Exception {
            long[] r = ask("incremental " + chunk + " " + workers + " eng_c" + chunk + "_w" + workers + "_r" + round);
            return report(new Leg(round, "engine", chunk, workers, rows, r[0], -1, r[1] / 1e9, Map.of("process", r[2] / 1e9)));
        }

        Leg copy(int round, long rows) throws Exception {
            long[] r = ask("copy");
            return report(new Leg(round, "copy", 0, 1, rows, r[0], -1, r[1] / 1e9, Map.of("process", r[2] / 1e9)));
        }

        private long[] ask(String command) throws Exception {
            commands.write(command + "\n");
            commands.flush();
            for (String line; (line = answers.readLine()) != null; ) {
                if (line.startsWith("result ")) return Arrays.stream(line.substring(7).split(" ")).mapToLong(Long::parseLong).toArray();
                if (line.startsWith("error ")) throw new IllegalStateException("engine process: " + command + ": " + line.substring(6));
                System.out.println("engine> " + line);
            }
            throw new IllegalStateException("engine process ended (exit " + process.waitFor() + ") during " + command);
        }

        @Override
        public void close() throws Exception {
            commands.write("quit\n");
            commands.flush();
            if (!process.waitFor(30, TimeUnit.SECONDS)) process.destroyForcibly();
        }
    }
}
