package io.pgrepl.benchmarks.walsender;

import io.pgrepl.client.ConnectionConfig;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ReplicationMode;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.testkit.PgServer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The server's own cost of logical replication: the walsender's CPU time per change, read from
 * {@code /proc/<pid>/stat} (user + system ticks) around each slot's drain, for pgoutput in text and in
 * binary, for a publication that sends every row and ones that send almost none, and for one slot
 * against two and four slots reading the same WAL at once.
 *
 * <p>Every slot of every round is created before the load, so each decodes the same WAL: {@code --rows}
 * five-column inserts into {@code t} in transactions of {@code --batch}, then one marker transaction
 * inserting a row into both {@code t} and {@code other}, which every publication sends and whose commit
 * is the end LSN. Each slot is drained to that commit by pgrepl's handler face
 * ({@link WalsenderCostClient}, a process of its own; the cheapest client, so the client's cost does not
 * hold the walsender back), whose own CPU time is reported beside the walsender's for context. The
 * cases run one after another, round 0 in the listed order, round 1 reversed; the slots of a
 * several-slot case are drained at the same time. CPU time is what is compared, not wall time: on a
 * shared machine the wall time measures the other tenants.
 *
 * <ul>
 *   <li>{@code text}: one slot, publication {@code FOR TABLE t}, values in text (pgrepl's default): the baseline.
 *   <li>{@code binary}: the same with {@code binary 'true'} (PostgreSQL 14+).
 *   <li>{@code other_table}: a publication {@code FOR TABLE other}: every change of {@code t} decoded, none sent.
 *   <li>{@code row_filter}: {@code FOR TABLE t WHERE (a < 10)}, 1% of the rows sent (PostgreSQL 15+).
 *   <li>{@code slots_2}, {@code slots_4}: two and four slots like the baseline's, drained at once.
 * </ul>
 *
 * <pre>java -cp benchmarks/target/benchmarks.jar io.pgrepl.benchmarks.walsender.WalsenderCost
 *     [--version 18] [--rows 400000] [--batch 1000] [--rounds 2] [--cases text,binary,other_table,row_filter,slots_2,slots_4] [--out FILE.tsv]</pre>
 *
 * Cases a server major lacks are left out with a note.
 */
public final class WalsenderCost {

    /** One measured configuration: {@code slots} slots on {@code publication}, values in text or binary. */
    record Case(String name, String publication, boolean binary, int slots, int sinceMajor) {}

    static final List<Case> CASES = List.of(
            new Case("text", "pub_all", false, 1, 10),
            new Case("binary", "pub_all", true, 1, 14),
            new Case("other_table", "pub_other", false, 1, 10),
            new Case("row_filter", "pub_filtered", false, 1, 15),
            new Case("slots_2", "pub_all", false, 2, 10),
            new Case("slots_4", "pub_all", false, 4, 10));

    /** One slot's drain: what its client reported. */
    record Drain(int round, Case c, String slot, long rows, long walsenderUserUs, long walsenderSysUs, long clientUs,
                 long wallMs, String load) {
        long walsenderUs() {
            return walsenderUserUs + walsenderSysUs;
        }
    }

    static final class Options {
        int version = 18;
        int rows = 400_000;
        int batch = 1000;
        int rounds = 2;
        List<String> cases = CASES.stream().map(Case::name).toList();
        Path out;

        static Options parse(String[] args) {
            Options o = new Options();
            for (int i = 0; i < args.length; i++) {
                if (i + 1 >= args.length) throw new IllegalArgumentException(args[i] + " needs a value");
                switch (args[i]) {
                    case "--version" -> o.version = Integer.parseInt(args[++i]);
                    case "--rows" -> o.rows = Integer.parseInt(args[++i]);
                    case "--batch" -> o.batch = Integer.parseInt(args[++i]);
                    case "--rounds" -> o.rounds = Integer.parseInt(args[++i]);
                    case "--cases" -> o.cases = List.of(args[++i].split(","));
                    case "--out" -> o.out = Path.of(args[++i]);
                    default -> throw new IllegalArgumentException("unknown option " + args[i] + "; see the class comment");
                }
            }
            for (String c : o.cases) {
                if (CASES.stream().noneMatch(k -> k.name().equals(c))) {
                    throw new IllegalArgumentException("unknown case " + c + "; known: " + CASES.stream().map(Case::name).toList());
                }
            }
            if (!o.cases.contains("text")) throw new IllegalArgumentException("--cases must hold text, the baseline of every ratio");
            return o;
        }
    }

    private WalsenderCost() {}

    public static void main(String[] args) throws Exception {
        Options o = Options.parse(args);
        String clk = run("getconf", "CLK_TCK");
        if (!clk.equals(Integer.toString(ProcStat.TICKS_PER_SECOND))) {
            throw new IllegalStateException("getconf CLK_TCK says " + clk + "; /proc's ticks are read as 1/" + ProcStat.TICKS_PER_SECOND + " s");
        }
        try (PgServer s = PgServer.builder().version(o.version)
                .setting("max_replication_slots", "100").setting("max_wal_senders", "20")
                .setting("max_wal_size", "8GB").setting("checkpoint_timeout", "1h")
                // No vacuum or analyze of t between the drains: their WAL would be decoded by some slots only.
                .setting("autovacuum", "off").start()) {
            int major = Integer.parseInt(s.version().split("[.\\s]")[0]);
            List<Case> cases = new ArrayList<>();
            for (String name : o.cases) {
                Case c = CASES.stream().filter(k -> k.name().equals(name)).findFirst().orElseThrow();
                if (major >= c.sinceMajor()) cases.add(c);
                else System.out.printf("%s left out: it needs PostgreSQL %d+%n", c.name(), c.sinceMajor());
            }
            System.out.printf("PostgreSQL %s, %d inserts in transactions of %d, %d rounds, JDK %s, %d CPUs, load %s%n",
                    s.version(), o.rows, o.batch, o.rounds, System.getProperty("java.version"),
                    Runtime.getRuntime().availableProcessors(), load());
            String cols = "(id int PRIMARY KEY, a int, b bigint, c text, d timestamptz)";
            s.sql("postgres", "CREATE TABLE t " + cols + "; CREATE TABLE other " + cols + ";"
                    + " CREATE PUBLICATION pub_all FOR TABLE t; CREATE PUBLICATION pub_other FOR TABLE other"
                    + (major >= 15 ? "; CREATE PUBLICATION pub_filtered FOR TABLE t WHERE (a < 10) WITH (publish = 'insert')" : ""));
            List<String> slots = new ArrayList<>(List.of("probe"));
            for (int r = 0; r < o.rounds; r++) for (Case c : cases) for (int i = 0; i < c.slots(); i++) slots.add(slot(r, c, i));
            StringBuilder create = new StringBuilder("SELECT count(*) FROM (");
            for (int i = 0; i < slots.size(); i++) {
                create.append(i == 0 ? "" : " UNION ALL ").append("SELECT pg_create_logical_replication_slot('")
                        .append(slots.get(i)).append("', 'pgoutput')");
            }
            s.sql("postgres", create.append(") s").toString());
            long t0 = System.nanoTime();
            load(s, o.rows, o.batch);
            // ORDER BY, not max(): max(pg_lsn) needs PostgreSQL 13.
            String end = query(s, "SELECT lsn::text FROM pg_logical_slot_get_binary_changes('probe', NULL, NULL,"
                    + " 'proto_version', '1', 'publication_names', 'pub_other') ORDER BY lsn DESC LIMIT 1");
            s.sql("postgres", "SELECT pg_drop_replication_slot('probe')");
            Map<String, Long> expected = new LinkedHashMap<>();
            expected.put("pub_all", Long.parseLong(query(s, "SELECT count(*) FROM t")));
            expected.put("pub_other", Long.parseLong(query(s, "SELECT count(*) FROM other")));
            expected.put("pub_filtered", Long.parseLong(query(s, "SELECT count(*) FROM t WHERE a < 10")));
            System.out.printf("loaded in %.1f s; end LSN %s; rows each publication sends: %s%n",
                    (System.nanoTime() - t0) / 1e9, end, expected);
            List<Drain> drains = new ArrayList<>();
            for (int r = 0; r < o.rounds; r++) {
                List<Case> order = new ArrayList<>(cases);
                if (r % 2 == 1) Collections.reverse(order);
                for (Case c : order) drains.addAll(drain(s, r, c, end, expected.get(c.publication())));
            }
            WalsenderCostReport.print(s.version(), o.rows, cases, o.rounds, drains, System.out);
            if (o.out != null) {
                WalsenderCostReport.writeTsv(s.version(), o.rows, drains, o.out);
                System.out.println("raw drains written to " + o.out);
            }
        }
    }

    static String slot(int round, Case c, int i) {
        return "r" + round + "_" + c.name() + "_" + i;
    }

    /** The workload, then the marker transaction every publication sends, committed with a flush. */
    private static void load(PgServer s, int rows, int batch) throws Exception {
        StringBuilder q = new StringBuilder();
        for (int lo = 1; lo <= rows; lo += batch) {
            q.append("BEGIN; INSERT INTO t SELECT g, g % 1000, g * 1000003::bigint, 'row ' || g || ' the quick brown fox',")
                    .append(" '2026-01-01 00:00:00+00'::timestamptz + g * interval '1 second' FROM generate_series(")
                    .append(lo).append(", ").append(Math.min(rows, lo + batch - 1)).append(") g; COMMIT;");
            if (q.length() > 100_000) {
                s.sql("postgres", q.toString());
                q.setLength(0);
            }
        }
        q.append("BEGIN; SET LOCAL synchronous_commit = on;")
                .append(" INSERT INTO t VALUES (").append(rows + 1).append(", 0, 0, 'end', '2026-01-01 00:00:00+00');")
                .append(" INSERT INTO other VALUES (1, 0, 0, 'end', '2026-01-01 00:00:00+00'); COMMIT;");
        s.sql("postgres", q.toString());
    }

    /** A case's slots drained at once, each by its own client process. */
    private static List<Drain> drain(PgServer s, int round, Case c, String end, long expectedRows) throws Exception {
        String load = load();
        List<Process> clients = new ArrayList<>();
        List<Path> errs = new ArrayList<>();
        for (int i = 0; i < c.slots(); i++) {
            Path err = Files.createTempFile("walsender-cost", ".err");
            errs.add(err);
            clients.add(new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), WalsenderCostClient.class.getName(), s.host(),
                    Integer.toString(s.port()), s.superuser().name(), s.superuser().password(), slot(round, c, i),
                    c.publication(), c.binary() ? "binary" : "text", end)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(err.toFile()).start());
        }
        List<Drain> out = new ArrayList<>();
        try {
            for (int i = 0; i < c.slots(); i++) {
                Process p = clients.get(i);
                if (!p.waitFor(30, TimeUnit.MINUTES)) throw new IllegalStateException(slot(round, c, i) + ": no end after 30 minutes");
                String report = Files.readString(errs.get(i));
                if (p.exitValue() != 0) throw new IllegalStateException(slot(round, c, i) + " exited with " + p.exitValue() + ": " + report.strip());
                Drain d = parse(round, c, slot(round, c, i), report, load);
                if (d.rows() != expectedRows) {
                    throw new IllegalStateException(d.slot() + " received " + d.rows() + " inserts; the publication sends " + expectedRows);
                }
                System.out.printf("round %d %-11s %-16s %8d rows  walsender %6.2f s user %5.2f s sys  client %6.2f s  wall %6.1f s  load %s%n",
                        round, c.name(), d.slot(), d.rows(), d.walsenderUserUs() / 1e6, d.walsenderSysUs() / 1e6,
                        d.clientUs() / 1e6, d.wallMs() / 1e3, load);
                out.add(d);
            }
        } finally {
            for (Process p : clients) p.destroyForcibly();
            for (Path e : errs) Files.deleteIfExists(e);
        }
        return out;
    }

    /** The client's report line: {@code rows=N sum=S walsender_pid=P walsender_user_us=U walsender_sys_us=S client_us=C wall_ms=W}. */
    static Drain parse(int round, Case c, String slot, String stderr, String load) {
        for (String line : stderr.split("\n")) {
            if (!line.startsWith("rows=")) continue;
            Map<String, Long> v = new LinkedHashMap<>();
            for (String kv : line.strip().split(" ")) {
                int eq = kv.indexOf('=');
                v.put(kv.substring(0, eq), Long.parseLong(kv.substring(eq + 1)));
            }
            return new Drain(round, c, slot, v.get("rows"), v.get("walsender_user_us"), v.get("walsender_sys_us"),
                    v.get("client_us"), v.get("wall_ms"), load);
        }
        throw new IllegalStateException(slot + " reported nothing: " + stderr.strip());
    }

    /** The first column of the one row {@code sql} returns, over a plain (not replication) connection. */
    private static String query(PgServer s, String sql) throws Exception {
        try (PgConnection c = PgConnection.connect(ConnectionConfig.builder().host(s.host()).port(s.port())
                .user(s.superuser().name()).password(s.superuser().password()).database("postgres")
                .sslMode(SslMode.DISABLE).replication(ReplicationMode.NONE).build()).toCompletableFuture().get(5, TimeUnit.MINUTES)) {
            String v = c.query(sql).toCompletableFuture().get(30, TimeUnit.MINUTES).singleRow().get(0);
            if (v == null) throw new IllegalStateException("NULL from " + sql);
            return v;
        }
    }

    static String load() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return f[0];
        } catch (IOException e) {
            return "?";
        }
    }

    private static String run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        if (!p.waitFor(1, TimeUnit.MINUTES) || p.exitValue() != 0) throw new IOException(String.join(" ", cmd) + ": " + out);
        return out;
    }
}
