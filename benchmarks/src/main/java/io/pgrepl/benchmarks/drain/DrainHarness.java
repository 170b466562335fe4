package io.pgrepl.benchmarks.drain;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.testkit.PgServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Side-by-side drain of one backlog by several clients, each its own process with its own slot:
 * pgrepl's handler face, its reactive face, the {@code pgrepl stream} CLI, pgjdbc's raw
 * {@code PGReplicationStream} and {@code pg_recvlogical}. All slots are created before the load,
 * so every client decodes the same WAL to the same end LSN (the last commit's). Clients run one at a
 * time, in alternating order over the rounds. Then a start-up phase: fresh slots, one one-row
 * transaction, each client drains it (process start to first change to exit).
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar io.pgrepl.benchmarks.drain.DrainHarness
 *     [--version 17] [--rows 1000000] [--batch 1000] [--rounds 3] [--startup-rounds 3] [--proto-version 1]
 *     [--clients handler,reactive,flow,reactor,cli,pgjdbc,recvlogical,flow_direct,reactor_direct,handler_lf,reactive_lf,...] [--cli ./pgrepl] [--out FILE.tsv] [--verify] [--jfr DIR]
 *     [--cli-variant NAME=JVM_OPTS ...] [--cli-args NAME=STREAM_ARGS ...] [--variant NAME=handler|reactive|flow|reactor|pgjdbc:JVM_OPTS ...]  (then list NAME in --clients;
 *     names are slot names: lower case, digits, underscores)</pre>
 *
 * Run it from the repository root (the CLI is {@code ./pgrepl}, the launcher of {@code cli/target/pgrepl.jar}).
 * {@code --verify} sends the CLI's and pg_recvlogical's output to a file and counts the rows in it;
 * otherwise their output goes to /dev/null and the Java clients' own counts are checked.
 */
public final class DrainHarness {
    static final String PUBLICATION = "drain_pub";
    /** Every row's text column starts with it: rows are counted in any client's output by this marker. */
    static final String ROW_MARKER = "row:";
    static final List<String> ALL_CLIENTS = List.of("handler", "reactive", "flow", "reactor", "cli", "pgjdbc", "recvlogical");
    /** Java faces; the {@code _direct} ones deliver on the event loop, run only when listed. */
    static final List<String> JAVA_FACES = List.of("handler", "reactive", "flow", "reactor", "pgjdbc", "reactive_direct", "flow_direct", "reactor_direct");
    /**
     * The JVM flags of the {@code ./pgrepl} launcher (minus its CDS archive, which belongs to the CLI's
     * jar). A client named {@code FACE_lf} is that Java face run with them; the plain names run on the
     * JVM's defaults, as a library user's application would.
     */
    static final String LAUNCHER_FLAGS = "-XX:+UseSerialGC -Xms16m -XX:MaxHeapFreeRatio=30 -XX:MinHeapFreeRatio=10"
            + " -XX:CompileThresholdScaling=4";

    /** Command-line options. */
    static final class Options {
        int version = 17;
        int rows = 1_000_000;
        int batch = 1000;
        int rounds = 3;
        int startupRounds = 3;
        int proto = 1;
        List<String> clients = ALL_CLIENTS;
        Path cli = Path.of("pgrepl");
        Path out;
        boolean verify;
        /** With --jfr DIR: every JVM client records a JFR profile (settings=profile) into DIR. */
        Path jfr;
        /** --cli-variant NAME=JVM_OPTS adds a client NAME: the CLI with PGREPL_JAVA_OPTS=JVM_OPTS (launcher flags compared side by side). */
        final Map<String, String> cliVariants = new java.util.LinkedHashMap<>();
        /** --cli-args NAME=ARGS adds a client NAME: the CLI with ARGS appended to its stream command (e.g. --format protocol). */
        final Map<String, String> cliArgs = new java.util.LinkedHashMap<>();
        /** --variant NAME=FACE:JVM_OPTS adds a client NAME: a Java face (handler, reactive, pgjdbc) with extra JVM options. */
        final Map<String, String[]> javaVariants = new java.util.LinkedHashMap<>();
        long timeoutSeconds = 1800;

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                String v = i + 1 < args.length ? args[i + 1] : null;
                switch (args[i]) {
                    case "--version" -> o.version = Integer.parseInt(args[++i]);
                    case "--rows" -> o.rows = Integer.parseInt(args[++i]);
                    case "--batch" -> o.batch = Integer.parseInt(args[++i]);
                    case "--rounds" -> o.rounds = Integer.parseInt(args[++i]);
                    case "--startup-rounds" -> o.startupRounds = Integer.parseInt(args[++i]);
                    case "--proto-version" -> o.proto = Integer.parseInt(args[++i]);
                    case "--clients" -> o.clients = List.of(args[++i].split(","));
                    case "--cli" -> o.cli = Path.of(args[++i]);
                    case "--out" -> o.out = Path.of(args[++i]);
                    case "--verify" -> o.verify = true;
                    case "--jfr" -> o.jfr = Path.of(args[++i]).toAbsolutePath();
                    case "--variant" -> {
                        String[] kv = args[++i].split("=", 2);
                        String[] fo = kv.length == 2 ? kv[1].split(":", 2) : new String[0];
                        if (fo.length != 2 || !JAVA_FACES.contains(fo[0])) {
                            throw new IllegalArgumentException("--variant NAME=handler|reactive|flow|reactor|pgjdbc:JVM_OPTS");
                        }
                        o.javaVariants.put(kv[0], fo);
                    }
                    case "--cli-variant" -> {
                        String[] kv = args[++i].split("=", 2);
                        if (kv.length != 2 || ALL_CLIENTS.contains(kv[0])) throw new IllegalArgumentException("--cli-variant NAME=JVM_OPTS");
                        o.cliVariants.put(kv[0], kv[1]);
                    }
                    case "--cli-args" -> {
                        String[] kv = args[++i].split("=", 2);
                        if (kv.length != 2 || ALL_CLIENTS.contains(kv[0])) throw new IllegalArgumentException("--cli-args NAME=STREAM_ARGS");
                        o.cliArgs.put(kv[0], kv[1]);
                    }
                    default -> throw new IllegalArgumentException("unknown option " + args[i] + "; see the class comment");
                }
                if (v == null && !args[i].equals("--verify")) throw new IllegalArgumentException(args[i] + " needs a value");
            }
            for (String c : o.clients) {
                String face = c.endsWith("_lf") ? c.substring(0, c.length() - 3) : null;
                if (face != null && JAVA_FACES.contains(face) && !o.javaVariants.containsKey(c)) {
                    o.javaVariants.put(c, new String[] {face, LAUNCHER_FLAGS});
                }
                if (!ALL_CLIENTS.contains(c) && !JAVA_FACES.contains(c) && !o.cliVariants.containsKey(c) && !o.cliArgs.containsKey(c) && !o.javaVariants.containsKey(c)) throw new IllegalArgumentException("unknown client " + c + "; known: " + ALL_CLIENTS);
            }
            return o;
        }
    }

    /** One client's run: {@code phase} is "drain" (the backlog) or "startup" (one row). */
    record Run(String client, String phase, int round, long rows, MeasuredProcess.Result result) {}

    /** Everything measured, with the environment it was measured in. */
    record Outcome(String serverVersion, String recvlogicalVersion, int rows, List<Run> runs) {}

    private DrainHarness() {}

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args);
        Outcome outcome = run(o);
        DrainReport.print(o, outcome, System.out);
        if (o.out != null) {
            DrainReport.writeTsv(outcome, o.out);
            System.out.println("raw runs written to " + o.out);
        }
    }

    static Outcome run(Options o) throws Exception {
        List<String> clients = new ArrayList<>(o.clients);
        String recvlogical = recvlogicalVersion();
        if (recvlogical == null && clients.remove("recvlogical")) {
            System.out.println("pg_recvlogical is not installed (apt-get install postgresql-client): left out");
        }
        if ((clients.contains("cli") || !o.cliVariants.isEmpty() || !o.cliArgs.isEmpty()) && !Files.isExecutable(o.cli)) {
            throw new IllegalStateException(o.cli.toAbsolutePath() + " is not executable: build the CLI (mvn -B -q -DskipTests package)"
                    + " and run from the repository root, or pass --cli");
        }
        try (PgServer s = PgServer.builder().version(o.version)
                .setting("max_replication_slots", "100").setting("max_wal_senders", "20")
                .setting("max_wal_size", "8GB").setting("checkpoint_timeout", "1h").start()) {
            System.out.printf("PostgreSQL %s, %d rows in transactions of %d, proto_version %d, JDK %s, %d CPUs%n",
                    s.version(), o.rows, o.batch, o.proto, System.getProperty("java.version"),
                    Runtime.getRuntime().availableProcessors());
            s.sql("postgres", "CREATE TABLE t (id int PRIMARY KEY, a int, b bigint, c text, d timestamptz);"
                    + " CREATE PUBLICATION " + PUBLICATION + " FOR TABLE t");
            List<Run> runs = new ArrayList<>();
            try (PgConnection sql = connect(s)) {
                createSlots(sql, "d", o.rounds, clients);
                long t0 = System.nanoTime();
                load(s, 1, o.rows, o.batch);
                String end = endLsn(sql, o.proto);
                System.out.printf("loaded %d rows in %.1f s; end LSN %s%n", o.rows, (System.nanoTime() - t0) / 1e9, end);
                for (int r = 0; r < o.rounds; r++) {
                    for (String c : order(clients, r)) runs.add(drain(s, o, c, "drain", r, slot("d", r, c), end, o.rows));
                }
                if (o.startupRounds > 0) {
                    createSlots(sql, "s", o.startupRounds, clients);
                    load(s, o.rows + 1, o.rows + 1, 1);
                    String startupEnd = endLsn(sql, o.proto);
                    for (int r = 0; r < o.startupRounds; r++) {
                        for (String c : order(clients, r)) runs.add(drain(s, o, c, "startup", r, slot("s", r, c), startupEnd, 1));
                    }
                }
            }
            return new Outcome(s.version(), recvlogical, o.rows, runs);
        }
    }

    /** Round 0 in the given order, round 1 reversed, and so on: no client always goes first. */
    static List<String> order(List<String> clients, int round) {
        List<String> l = new ArrayList<>(clients);
        if (round % 2 == 1) Collections.reverse(l);
        return l;
    }

    private static String slot(String phase, int round, String client) {
        return phase + "_" + round + "_" + client;
    }

    /** All slots at once, before the data: every client then sees the same changes. A probe slot finds the end. */
    private static void createSlots(PgConnection sql, String phase, int rounds, List<String> clients) throws Exception {
        StringBuilder q = new StringBuilder("SELECT count(*) FROM (");
        List<String> names = new ArrayList<>(List.of("probe"));
        for (int r = 0; r < rounds; r++) for (String c : clients) names.add(slot(phase, r, c));
        for (int i = 0; i < names.size(); i++) {
            if (i > 0) q.append(" UNION ALL ");
            q.append("SELECT pg_create_logical_replication_slot('").append(names.get(i)).append("', 'pgoutput')");
        }
        await(sql.query(q.append(") s").toString()));
    }

    /** Rows {@code from..to} (inclusive) in transactions of {@code batch}, each row's text starting with the marker. */
    static void load(PgServer s, int from, int to, int batch) throws Exception {
        StringBuilder q = new StringBuilder();
        int inScript = 0;
        for (int lo = from; lo <= to; lo += batch) {
            int hi = Math.min(to, lo + batch - 1);
            q.append("BEGIN; INSERT INTO t SELECT g, g % 1000, g * 1000003::bigint, '").append(ROW_MARKER)
                    .append("' || g || ' the quick brown fox', '2026-01-01 00:00:00+00'::timestamptz + g * interval '1 second'")
                    .append(" FROM generate_series(").append(lo).append(", ").append(hi).append(") g; COMMIT;");
            if (++inScript == 100) {
                s.sql("postgres", q.toString());
                q.setLength(0);
                inScript = 0;
            }
        }
        if (q.length() > 0) s.sql("postgres", q.toString());
    }

    /**
     * The end LSN of the last commit: decoded by the probe slot (consumed, then dropped), so it is the
     * LSN each client sees in the last Commit message. The walsender and the SQL functions send only
     * flushed WAL; a synchronous commit with an xid flushes everything before it.
     */
    private static String endLsn(PgConnection sql, int proto) throws Exception {
        await(sql.query("SET synchronous_commit = on; CREATE TEMP TABLE IF NOT EXISTS flush_marker (i int); DROP TABLE flush_marker"));
        String end = await(sql.query("SELECT max(lsn)::text FROM pg_logical_slot_get_binary_changes('probe', NULL, NULL,"
                + " 'proto_version', '" + proto + "', 'publication_names', '" + PUBLICATION + "')")).singleRow().get(0);
        await(sql.query("SELECT pg_drop_replication_slot('probe')"));
        if (end == null) throw new IllegalStateException("the probe slot decoded nothing");
        return end;
    }

    private static Run drain(PgServer s, Options o, String client, String phase, int round, String slot, String end,
                             long expectedRows) throws Exception {
        boolean cli = client.equals("cli") || o.cliVariants.containsKey(client) || o.cliArgs.containsKey(client);
        boolean toFile = o.verify && (cli || client.equals("recvlogical"));
        Path stdout = toFile ? Files.createTempFile("drain-" + client, ".out") : Path.of("/dev/null");
        try {
            String user = s.superuser().name();
            String password = s.superuser().password();
            String jfr = o.jfr == null ? null : "-XX:StartFlightRecording=settings=profile,filename="
                    + o.jfr.resolve(client + "-" + phase + "-" + round + ".jfr");
            Map<String, String> env = new java.util.HashMap<>(Map.of("PGPASSWORD", password));
            String cliOpts = o.cliVariants.getOrDefault(client, System.getenv().getOrDefault("PGREPL_JAVA_OPTS", ""));
            if (cliOpts.startsWith("java")) cliOpts = "";
            env.put("PGREPL_JAVA_OPTS", (cliOpts + " " + (jfr == null ? "" : jfr)).strip());
            List<String> cmd = cli ? cliCommand(o, client, streamArgs(o, client, s.url(s.superuser(), "postgres"), slot, end))
                    : switch (face(o, client)) {
                case "handler", "reactive", "flow", "reactor", "pgjdbc", "reactive_direct", "flow_direct", "reactor_direct" -> javaClient(jfr, o.javaVariants.containsKey(client) ? o.javaVariants.get(client)[1] : "",
                        javaCommand(), "-cp", System.getProperty("java.class.path"), DrainClient.class.getName(), face(o, client), s.host(), Integer.toString(s.port()), user, password, slot,
                        PUBLICATION, Integer.toString(o.proto), end);
                case "recvlogical" -> List.of("pg_recvlogical", "-h", s.host(), "-p", Integer.toString(s.port()), "-U", user,
                        "-d", "postgres", "--slot", slot, "--start", "--endpos", end, "--no-loop", "-f", "-",
                        "-o", "proto_version=" + o.proto, "-o", "publication_names=" + PUBLICATION);
                default -> throw new IllegalArgumentException(client);
            };
            MeasuredProcess.Result r = MeasuredProcess.run(cmd, stdout, env, o.timeoutSeconds);
            if (r.exitCode() != 0) {
                throw new IllegalStateException(client + " exited with " + r.exitCode() + ": " + r.stderr().strip());
            }
            long rows;
            if (cli || client.equals("recvlogical")) {
                rows = toFile ? countMarkers(stdout) : -1; // -1: not counted (output to /dev/null)
            } else {
                rows = reportedRows(client, r.stderr());
                if (rows != expectedRows) throw new IllegalStateException(client + " drained " + rows + " rows, expected " + expectedRows);
            }
            System.out.printf("%-8s round %d %-11s %6.2f s wall %6.2f s user %6.2f s sys %7.1f MB peak RSS%s%s%n", phase, round,
                    client, r.wallSeconds(), r.userSeconds(), r.sysSeconds(), r.peakRssKb() / 1024.0,
                    rows < 0 ? "" : "  " + rows + " rows", timing(r.stderr()));
            return new Run(client, phase, round, rows, r);
        } finally {
            if (toFile) Files.deleteIfExists(stdout);
        }
    }

    private static List<String> streamArgs(Options o, String client, String url, String slot, String end) {
        List<String> args = new ArrayList<>(List.of("stream", url, "--slot", slot, "--publication", PUBLICATION,
                "--proto-version", Integer.toString(o.proto), "--end-lsn", end));
        for (String x : o.cliArgs.getOrDefault(client, "").trim().split("\\s+")) if (!x.isEmpty()) args.add(x);
        return args;
    }

    /**
     * The launcher ({@code --cli}), with a variant's options in PGREPL_JAVA_OPTS; a variant whose options
     * start with {@code java} bypasses the launcher: {@code java OPTS -jar cli/target/pgrepl.jar} (the
     * JVM's defaults, as before the launcher set any).
     */
    private static List<String> cliCommand(Options o, String client, List<String> args) {
        String opts = o.cliVariants.get(client);
        List<String> cmd = new ArrayList<>();
        if (opts != null && opts.startsWith("java")) {
            cmd.add(javaCommand());
            for (String x : opts.substring(4).trim().split("\\s+")) if (!x.isEmpty()) cmd.add(x);
            cmd.add("-jar");
            cmd.add(o.cli.toAbsolutePath().getParent().resolve("cli/target/pgrepl.jar").toString());
        } else {
            cmd.add(o.cli.toAbsolutePath().toString());
        }
        cmd.addAll(args);
        return cmd;
    }

    /** {@code cmd} is java, -cp, the harness's class path, ...; a variant's own {@code -cp X} replaces that class path. */
    private static List<String> javaClient(String jfr, String opts, String... cmd) {
        List<String> l = new ArrayList<>(List.of(cmd));
        List<String> extra = new ArrayList<>();
        for (String x : opts.trim().split("\\s+")) if (!x.isEmpty()) extra.add(x);
        int cp = extra.indexOf("-cp");
        if (cp >= 0 && cp + 1 < extra.size()) {
            l.set(2, extra.get(cp + 1)); // e.g. an older build's benchmarks.jar, side by side
            extra.subList(cp, cp + 2).clear();
        }
        l.addAll(1, extra);
        if (jfr != null) l.add(1, jfr);
        return l;
    }

    private static String face(Options o, String client) {
        return o.javaVariants.containsKey(client) ? o.javaVariants.get(client)[0] : client;
    }

    /** The Java clients' own split: millis from process start to the first change and to the end. */
    private static String timing(String stderr) {
        int i = stderr.indexOf("first_change_ms=");
        return i < 0 ? "" : "  (" + stderr.substring(i).strip() + ")";
    }

    private static long reportedRows(String client, String stderr) {
        for (String line : stderr.split("\n")) {
            if (line.startsWith("rows=")) return Long.parseLong(line.substring(5, line.indexOf(' ')));
        }
        throw new IllegalStateException(client + " reported no row count: " + stderr.strip());
    }

    /** Occurrences of the row marker in a client's output, whatever its format (JSON, pgoutput bytes). */
    static long countMarkers(Path file) throws IOException {
        byte[] m = ROW_MARKER.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        long n = 0;
        try (var in = new java.io.BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
            int matched = 0;
            int b;
            while ((b = in.read()) >= 0) {
                if (b == m[matched]) {
                    if (++matched == m.length) {
                        n++;
                        matched = 0;
                    }
                } else {
                    matched = b == m[0] ? 1 : 0;
                }
            }
        }
        return n;
    }

    private static String javaCommand() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    private static String recvlogicalVersion() {
        try {
            Process p = new ProcessBuilder("pg_recvlogical", "--version").redirectErrorStream(true).start();
            String v = new String(p.getInputStream().readAllBytes()).strip();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0 ? v : null;
        } catch (IOException | InterruptedException e) {
            return null;
        }
    }

    static PgConnection connect(PgServer s) throws Exception {
        return await(PgConnection.connect(ConnectionConfig.builder().host(s.host()).port(s.port())
                .user(s.superuser().name()).password(s.superuser().password()).database("postgres")
                .sslMode(SslMode.DISABLE).replication(ReplicationMode.NONE).build()));
    }

    static <T> T await(java.util.concurrent.CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(30, TimeUnit.MINUTES);
    }
}
