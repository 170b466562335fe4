package io.pgrepl.benchmarks.connect;

import io.pgrepl.testkit.PgServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.util.clusters.EmbeddedConnectCluster;

/**
 * pgrepl's Kafka Connect source connector and Debezium's PostgreSQL connector in one real in-process
 * KRaft broker and Connect worker, one after the other, on the same backlog.
 *
 * <p>Streaming: table {@code t(id int PRIMARY KEY, a int, b bigint, c text, d timestamptz)}, one
 * publication; one pgoutput slot per connector per round, all created <em>before</em> the rows are
 * inserted (transactions of {@code --batch}), so every run decodes the same WAL. A run is timed from
 * the connector's creation until its topic's end offset reaches {@code --rows}; CPU is sampled at
 * both instants (see {@link CpuSample}). Snapshot: table {@code s} of {@code --snapshot-rows} rows,
 * a fresh connector with {@code snapshot.mode=initial} creating its own slot, timed the same way.
 * Rounds alternate the order. {@code --fidelity} runs {@link Fidelity}.
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar io.pgrepl.benchmarks.connect.ConnectSideBySide \
 *     --rows 1000000 --rounds 2 --snapshot-rows 200000 --snapshot-rounds 1 --fidelity</pre>
 */
public final class ConnectSideBySide {
    private ConnectSideBySide() {}

    static final class Options {
        int version = 17;
        int rows = 1_000_000;
        int batch = 1_000;
        int rounds = 2;
        int snapshotRows = 0;
        int snapshotRounds = 1;
        List<String> connectors = List.of(Connectors.DEBEZIUM, Connectors.PGREPL);
        boolean fidelity;
        boolean verify;
        boolean schemas = true;
        long timeoutSeconds = 1800;
        Path out;
        /** {@code --connector-config K=V}, repeatable: added to both connectors' configs (e.g. producer overrides). */
        Map<String, String> connectorConfig = new java.util.LinkedHashMap<>();
        /**
         * {@code --converter CONNECTOR=CLASS}, repeatable: that connector's own key and value converter
         * (a connector-level override; {@code cached} names pgrepl's CachedSchemaJsonConverter), with the
         * worker's {@code schemas.enable}. Unnamed connectors use the worker's JsonConverter.
         */
        Map<String, String> converters = new java.util.LinkedHashMap<>();

        private static void putPair(Map<String, String> into, String pair, String usage) {
            int eq = pair.indexOf('=');
            if (eq < 1) throw new IllegalArgumentException(usage + ", not " + pair);
            into.put(pair.substring(0, eq), pair.substring(eq + 1));
        }

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--version" -> o.version = Integer.parseInt(args[++i]);
                    case "--rows" -> o.rows = Integer.parseInt(args[++i]);
                    case "--batch" -> o.batch = Integer.parseInt(args[++i]);
                    case "--rounds" -> o.rounds = Integer.parseInt(args[++i]);
                    case "--snapshot-rows" -> o.snapshotRows = Integer.parseInt(args[++i]);
                    case "--snapshot-rounds" -> o.snapshotRounds = Integer.parseInt(args[++i]);
                    case "--connectors" -> o.connectors = List.of(args[++i].split(","));
                    case "--fidelity" -> o.fidelity = true;
                    case "--verify" -> o.verify = true;
                    case "--no-schemas" -> o.schemas = false;
                    case "--timeout" -> o.timeoutSeconds = Long.parseLong(args[++i]);
                    case "--out" -> o.out = Path.of(args[++i]);
                    case "--connector-config" -> putPair(o.connectorConfig, args[++i], "--connector-config KEY=VALUE");
                    case "--converter" -> putPair(o.converters, args[++i], "--converter CONNECTOR=CLASS");
                    default -> throw new IllegalArgumentException("unknown option " + args[i]
                            + " (--version N --rows N --batch N --rounds N --snapshot-rows N --snapshot-rounds N"
                            + " --connectors debezium,pgrepl --fidelity --verify --no-schemas --timeout S --out FILE.tsv"
                            + " --connector-config KEY=VALUE ... --converter CONNECTOR=CLASS|cached ...)");
                }
            }
            o.converters.replaceAll((connector, cls) ->
                    cls.equals("cached") ? "io.pgrepl.kafka.connect.CachedSchemaJsonConverter" : cls);
            if (o.fidelity && !o.schemas) throw new IllegalArgumentException("--fidelity compares schemas: drop --no-schemas");
            for (String c : o.connectors) {
                if (!c.equals(Connectors.PGREPL) && !c.equals(Connectors.DEBEZIUM)) {
                    throw new IllegalArgumentException("unknown connector " + c + " (debezium, pgrepl)");
                }
            }
            return o;
        }
    }

    /**
     * One connector's run. {@code records} is the topic's end offset a moment after it reached the
     * expected count; {@code distinctIds} the distinct row ids read back ({@code --verify}, else -1).
     */
    record Run(String phase, int round, String connector, long rows, long records, long distinctIds,
               double firstRecordSeconds, double seconds, Map<String, Double> cpu, long logBytes,
               ProducerStats producer) {
        double bytesPerRecord() {
            return records == 0 ? 0 : (double) logBytes / records;
        }

        double rowsPerSecond() {
            return rows / seconds;
        }

        double microsPerRow(String kind) {
            return cpu.get(kind) * 1e6 / rows;
        }
    }

    record Outcome(String pgVersion, double connectStartSeconds, List<Run> runs, List<String> fidelity) {}

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args);
        Outcome outcome = run(o);
        System.out.println(table(outcome));
        if (o.out != null) {
            Files.writeString(o.out, tsv(outcome));
            System.out.println("raw runs written to " + o.out);
        }
        System.exit(0); // the embedded cluster leaves non-daemon threads behind
    }

    static Outcome run(Options o) throws Exception {
        try (PgServer pg = PgServer.builder().version(o.version)
                .setting("max_replication_slots", "100").setting("max_wal_senders", "40")
                .setting("max_wal_size", "8GB").setting("checkpoint_timeout", "1h").start()) {
            long t0 = System.nanoTime();
            EmbeddedConnectCluster connect = startConnect(o.schemas);
            double connectStart = (System.nanoTime() - t0) / 1e9;
            System.out.printf("PostgreSQL %s; Connect worker + KRaft broker started in %.1f s; JDK %s, %d CPUs%n",
                    pg.version(), connectStart, System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
            List<Run> runs = new ArrayList<>();
            List<String> fidelity = List.of();
            try (TopicWatch watch = new TopicWatch(connect.kafka().bootstrapServers())) {
                if (o.rounds > 0 && o.rows > 0) streaming(pg, connect, watch, o, runs);
                if (o.snapshotRounds > 0 && o.snapshotRows > 0) snapshots(pg, connect, watch, o, runs);
                if (o.fidelity) fidelity = new Fidelity(pg, connect, watch).run();
            } finally {
                connect.stop();
            }
            return new Outcome(pg.version(), connectStart, runs, fidelity);
        }
    }

    /** @param schemas the JsonConverter's {@code schemas.enable}: false measures the worker's cheaper floor */
    static EmbeddedConnectCluster startConnect(boolean schemas) {
        Map<String, String> w = new HashMap<>();
        // Both connectors are on the classpath with a ServiceLoader manifest (Debezium 3.6.1 has one).
        w.put("plugin.discovery", "service_load");
        w.put("offset.flush.interval.ms", "10000");
        w.put("key.converter", JsonConverter.class.getName());
        w.put("value.converter", JsonConverter.class.getName());
        w.put("key.converter.schemas.enable", Boolean.toString(schemas));
        w.put("value.converter.schemas.enable", Boolean.toString(schemas));
        Properties broker = new Properties();
        broker.put("transaction.state.log.replication.factor", "1");
        broker.put("transaction.state.log.min.isr", "1");
        EmbeddedConnectCluster c = new EmbeddedConnectCluster.Builder().name("side-by-side").numWorkers(1).numBrokers(1)
                .workerProps(w).brokerProps(broker).build();
        c.start();
        return c;
    }

    private static void streaming(PgServer pg, EmbeddedConnectCluster connect, TopicWatch watch, Options o, List<Run> runs)
            throws Exception {
        pg.sql("postgres", "CREATE TABLE t (id int PRIMARY KEY, a int, b bigint, c text, d timestamptz);"
                + " CREATE PUBLICATION bench_pub FOR TABLE t");
        StringBuilder slots = new StringBuilder("SELECT count(*) FROM (SELECT 1");
        for (int r = 0; r < o.rounds; r++) {
            for (String c : o.connectors) {
                slots.append(" UNION ALL SELECT 1 FROM pg_create_logical_replication_slot('").append(slot("st", r, c))
                        .append("', 'pgoutput')");
            }
        }
        pg.sql("postgres", slots.append(") s").toString());
        long t0 = System.nanoTime();
        load(pg, "t", o.rows, o.batch);
        System.out.printf("loaded %d rows into t in transactions of %d in %.1f s%n", o.rows, o.batch, (System.nanoTime() - t0) / 1e9);
        for (int r = 0; r < o.rounds; r++) {
            for (String c : order(o.connectors, r)) {
                String slot = slot("st", r, c);
                runs.add(measure(pg, connect, watch, o, "stream", r, c, slot,
                        Connectors.config(c, pg, slot, slot, "bench_pub", "public\\.t", true), slot + ".public.t", o.rows));
            }
        }
    }

    private static void snapshots(PgServer pg, EmbeddedConnectCluster connect, TopicWatch watch, Options o, List<Run> runs)
            throws Exception {
        pg.sql("postgres", "CREATE TABLE s (id int PRIMARY KEY, a int, b bigint, c text, d timestamptz);"
                + " CREATE PUBLICATION snap_pub FOR TABLE s");
        load(pg, "s", o.snapshotRows, 10_000);
        pg.sql("postgres", "VACUUM ANALYZE s");
        for (int r = 0; r < o.snapshotRounds; r++) {
            for (String c : order(o.connectors, r)) {
                String slot = slot("sn", r, c);
                runs.add(measure(pg, connect, watch, o, "snapshot", r, c, slot,
                        Connectors.config(c, pg, slot, slot, "snap_pub", "public\\.s", false), slot + ".public.s", o.snapshotRows));
            }
        }
    }

    private static Run measure(PgServer pg, EmbeddedConnectCluster connect, TopicWatch watch, Options o, String phase,
                               int round, String connector, String name, Map<String, String> config, String topic, long rows)
            throws Exception {
        config.putAll(o.connectorConfig);
        String converter = o.converters.get(connector);
        if (converter != null) {
            for (String side : new String[] {"key", "value"}) {
                config.put(side + ".converter", converter);
                config.put(side + ".converter.schemas.enable", Boolean.toString(o.schemas));
            }
        }
        System.gc();
        CpuSample before = CpuSample.take();
        long start = System.nanoTime();
        connect.configureConnector(name, config);
        TopicWatch.Arrival a = watch.await(topic, rows, start, Duration.ofSeconds(o.timeoutSeconds), 50, 0);
        CpuSample after = CpuSample.take();
        ProducerStats producer = ProducerStats.of(name);
        Thread.sleep(1000); // late duplicates would show in the end offset
        long records = watch.endOffset(topic);
        long logBytes = watch.logBytes(topic);
        long distinct = -1;
        if (o.verify) {
            long[] d = watch.distinctIds(topic, rows);
            distinct = d[0];
            records = d[1];
        }
        connect.deleteConnector(name);
        dropSlot(pg, name);
        Run run = new Run(phase, round, connector, rows, records, distinct, a.firstNanos() / 1e9, a.allNanos() / 1e9,
                after.since(before, name), logBytes, producer);
        System.out.printf("%-8s round %d %-8s %,d rows in %.2f s (first record %.2f s): %,.0f rows/s; CPU us/row: "
                        + "connector %.1f (task %.1f, own %.1f, producer %.1f), process %.1f; records %d (%.0f log bytes each)%s%n",
                phase, round, connector, rows, run.seconds(), run.firstRecordSeconds(), run.rowsPerSecond(),
                run.microsPerRow("connector"), run.microsPerRow("task"), run.microsPerRow("own"),
                run.microsPerRow("producer"), run.microsPerRow("process"), records, run.bytesPerRecord(),
                distinct < 0 ? "" : ", distinct ids " + distinct);
        System.out.println("         " + producer);
        if (Boolean.getBoolean("sidebyside.restThreads")) {
            System.out.println("         rest of the process, by thread:" + after.restBreakdown(before, name, 12));
        }
        return run;
    }

    /** The connector is gone but its walsender may linger a moment: end it, then drop the slot. */
    static void dropSlot(PgServer pg, String slot) throws Exception {
        for (int i = 0; ; i++) {
            try {
                pg.sql("postgres", "SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = '"
                        + slot + "' AND active_pid IS NOT NULL; SELECT pg_drop_replication_slot(slot_name)"
                        + " FROM pg_replication_slots WHERE slot_name = '" + slot + "'");
                return;
            } catch (Exception e) {
                if (i == 50) throw e;
                Thread.sleep(200);
            }
        }
    }

    /** Rows 1..n as the drain harness writes them (its table shape and values), in transactions of {@code batch}. */
    static void load(PgServer pg, String table, int n, int batch) throws Exception {
        StringBuilder q = new StringBuilder();
        int inScript = 0;
        for (int lo = 1; lo <= n; lo += batch) {
            int hi = Math.min(n, lo + batch - 1);
            q.append("BEGIN; INSERT INTO ").append(table).append(" SELECT g, g % 1000, g * 1000003::bigint, 'row:' || g ||")
                    .append(" ' the quick brown fox', '2026-01-01 00:00:00+00'::timestamptz + g * interval '1 second'")
                    .append(" FROM generate_series(").append(lo).append(", ").append(hi).append(") g; COMMIT;");
            if (++inScript == 100) {
                pg.sql("postgres", q.toString());
                q.setLength(0);
                inScript = 0;
            }
        }
        if (q.length() > 0) pg.sql("postgres", q.toString());
    }

    /** Round 0 in the given order, round 1 reversed, and so on. */
    static List<String> order(List<String> connectors, int round) {
        List<String> l = new ArrayList<>(connectors);
        if (round % 2 == 1) Collections.reverse(l);
        return l;
    }

    private static String slot(String phase, int round, String connector) {
        return phase + round + "_" + connector;
    }

    static String table(Outcome outcome) {
        StringBuilder b = new StringBuilder(String.format("%-8s %5s %-8s %9s %9s %8s %9s %10s %8s %8s %8s %8s %8s %6s%n",
                "phase", "round", "conn", "rows", "records", "first_s", "total_s", "rows/s", "conn_us", "task_us",
                "own_us", "prod_us", "proc_us", "B/rec"));
        for (Run r : outcome.runs()) {
            b.append(String.format("%-8s %5d %-8s %9d %9d %8.2f %9.2f %10.0f %8.1f %8.1f %8.1f %8.1f %8.1f %6.0f%n",
                    r.phase(), r.round(), r.connector(), r.rows(), r.records(), r.firstRecordSeconds(), r.seconds(),
                    r.rowsPerSecond(), r.microsPerRow("connector"), r.microsPerRow("task"), r.microsPerRow("own"),
                    r.microsPerRow("producer"), r.microsPerRow("process"), r.bytesPerRecord()));
        }
        return b.toString();
    }

    static String tsv(Outcome outcome) {
        StringBuilder b = new StringBuilder("# PostgreSQL " + outcome.pgVersion() + "\n");
        b.append("phase\tround\tconnector\trows\trecords\tdistinct_ids\tfirst_s\ttotal_s\trows_per_s\tcpu_connector_s"
                + "\tcpu_task_s\tcpu_own_s\tcpu_producer_s\tcpu_rest_s\tcpu_process_s\tlog_bytes"
                + "\trecords_per_request\trequest_ms\tbuffer_wait\n");
        for (Run r : outcome.runs()) {
            Map<String, Double> c = r.cpu();
            b.append(String.join("\t", r.phase(), Integer.toString(r.round()), r.connector(), Long.toString(r.rows()),
                    Long.toString(r.records()), Long.toString(r.distinctIds()), fmt(r.firstRecordSeconds()),
                    fmt(r.seconds()), String.format("%.0f", r.rowsPerSecond()), fmt(c.get("connector")), fmt(c.get("task")),
                    fmt(c.get("own")), fmt(c.get("producer")), fmt(c.get("rest")), fmt(c.get("process")), Long.toString(r.logBytes()),
                    fmt(r.producer().recordsPerRequestAvg()), fmt(r.producer().requestLatencyAvgMs()),
                    fmt(r.producer().bufferWaitRatio()))).append('\n');
        }
        return b.toString();
    }

    private static String fmt(double d) {
        return String.format("%.3f", d);
    }
}
