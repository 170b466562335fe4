package io.pgrepl.benchmarks.drain;

import io.pgrepl.benchmarks.drain.DrainHarness.Outcome;
import io.pgrepl.benchmarks.drain.DrainHarness.Run;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/** The harness's figures: a table per phase (medians over rounds), the ratios to the goals, and a TSV of every run. */
final class DrainReport {
    private DrainReport() {}

    /** Medians of one client's runs in one phase. */
    record Summary(String client, int runs, double wall, double user, double sys, double cpu, double rssMb) {}

    static Map<String, Summary> summarise(Outcome o, String phase) {
        Map<String, List<Run>> byClient = new LinkedHashMap<>();
        for (Run r : o.runs()) if (r.phase().equals(phase)) byClient.computeIfAbsent(r.client(), k -> new ArrayList<>()).add(r);
        Map<String, Summary> out = new LinkedHashMap<>();
        byClient.forEach((c, runs) -> out.put(c, new Summary(c, runs.size(),
                median(runs, r -> r.result().wallSeconds()), median(runs, r -> r.result().userSeconds()),
                median(runs, r -> r.result().sysSeconds()), median(runs, r -> r.result().cpuSeconds()),
                median(runs, r -> r.result().peakRssKb() / 1024.0))));
        return out;
    }

    static double median(List<Run> runs, ToDoubleFunction<Run> f) {
        double[] v = runs.stream().mapToDouble(f).sorted().toArray();
        return v.length % 2 == 1 ? v[v.length / 2] : (v[v.length / 2 - 1] + v[v.length / 2]) / 2;
    }

    static void print(DrainHarness.Options opts, Outcome o, PrintStream out) {
        out.println();
        out.printf("PostgreSQL %s; %s; JDK %s; %d CPUs; medians over rounds%n", o.serverVersion(),
                o.recvlogicalVersion() == null ? "no pg_recvlogical" : o.recvlogicalVersion(),
                System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());
        Map<String, Summary> drain = summarise(o, "drain");
        out.printf("%nDrain of %,d rows (wall = process start to exit)%n", o.rows());
        out.println("client        runs   wall s     rows/s   user s    sys s    CPU s  CPU s/M rows  peak RSS MB");
        for (Summary s : drain.values()) {
            out.printf("%-12s %5d %8.2f %10.0f %8.2f %8.2f %8.2f %13.2f %12.1f%n", s.client, s.runs, s.wall, o.rows() / s.wall,
                    s.user, s.sys, s.cpu, s.cpu / o.rows() * 1e6, s.rssMb);
        }
        threads(o, out);
        Map<String, Summary> startup = summarise(o, "startup");
        if (!startup.isEmpty()) {
            out.printf("%nStart-up: process start to its first change (one one-row transaction) and exit%n");
            out.println("client        runs   wall s   user s    sys s    CPU s  peak RSS MB");
            for (Summary s : startup.values()) {
                out.printf("%-12s %5d %8.2f %8.2f %8.2f %8.2f %12.1f%n", s.client, s.runs, s.wall, s.user, s.sys, s.cpu, s.rssMb);
            }
        }
        out.printf("%nRatios (figures, never asserted)%n");
        ratio(out, "1. handler CPU/row vs pgjdbc raw read", drain, "handler", "pgjdbc", Summary::cpu, "<= 0.50");
        ratio(out, "1. handler rows/s vs pg_recvlogical", drain, "recvlogical", "handler", Summary::wall, ">= 0.95");
        ratio(out, "2. CLI CPU vs pgjdbc", drain, "cli", "pgjdbc", Summary::cpu, "<= 1.00");
        if (drain.containsKey("cli")) out.printf("   %-44s %8.1f MB   target <= 128 MB%n", "2. CLI peak RSS", drain.get("cli").rssMb);
        ratio(out, "3. reactive CPU vs handler", drain, "reactive", "handler", Summary::cpu, "<= 1.30");
        ratio(out, "   flow (views) CPU vs handler", drain, "flow", "handler", Summary::cpu, "<= 1.30");
        ratio(out, "   reactor CPU vs handler", drain, "reactor", "handler", Summary::cpu, "<= 1.30");
        ratio(out, "   flow_direct (event loop) CPU vs handler", drain, "flow_direct", "handler", Summary::cpu, "<= 1.30");
        ratio(out, "   reactor_direct (event loop) CPU vs handler", drain, "reactor_direct", "handler", Summary::cpu, "<= 1.30");
        for (String f : List.of("reactive", "flow", "reactor", "flow_direct", "reactor_direct")) {
            if (drain.containsKey(f)) out.printf("   %-44s %8.1f MB   target < 128 MB%n", f + " peak RSS", drain.get(f).rssMb);
        }
        out.printf("   with the launcher's flags (FACE_lf):%n");
        ratio(out, "   handler_lf CPU vs pgjdbc (defaults)", drain, "handler_lf", "pgjdbc", Summary::cpu, "(info)");
        ratio(out, "   reactive_lf CPU vs handler_lf", drain, "reactive_lf", "handler_lf", Summary::cpu, "(info)");
        ratio(out, "   flow_lf CPU vs handler_lf", drain, "flow_lf", "handler_lf", Summary::cpu, "(info)");
        ratio(out, "   reactor_lf CPU vs handler_lf", drain, "reactor_lf", "handler_lf", Summary::cpu, "(info)");
        ratio(out, "4. start-up CPU: CLI vs pgjdbc", startup, "cli", "pgjdbc", Summary::cpu, "<= 1.50");
        ratio(out, "4. start-up wall: CLI vs pgjdbc", startup, "cli", "pgjdbc", Summary::wall, "<= 1.50");
        ratio(out, "   start-up CPU: handler vs pgjdbc", startup, "handler", "pgjdbc", Summary::cpu, "(info)");
        ratio(out, "   handler CPU vs pg_recvlogical", drain, "handler", "recvlogical", Summary::cpu, "(info)");
    }

    /** Thread kinds of {@link ThreadCpu#summary}, in the order printed. */
    private static final List<String> THREAD_KINDS = List.of("jit", "gc+vm", "loop", "flow", "main", "other");

    /**
     * The Java clients' CPU by thread kind (medians over rounds, from their {@code cpu_s:} report):
     * the JIT's and start-up's share against the event loop's, per client, side by side.
     */
    static void threads(Outcome o, PrintStream out) {
        Map<String, List<Run>> byClient = new LinkedHashMap<>();
        for (Run r : o.runs()) {
            if (r.phase().equals("drain") && r.result().stderr().contains("cpu_s: ")) {
                byClient.computeIfAbsent(r.client(), k -> new ArrayList<>()).add(r);
            }
        }
        if (byClient.isEmpty()) return;
        out.printf("%nCPU s by thread (medians; main = start-up, and pgjdbc's reading)%n");
        out.print("client      ");
        for (String k : THREAD_KINDS) out.printf(" %7s", k);
        out.println();
        byClient.forEach((c, runs) -> {
            out.printf("%-12s", c);
            for (String k : THREAD_KINDS) out.printf(" %7.2f", median(runs, r -> threadSeconds(r.result().stderr(), k)));
            out.println();
        });
    }

    /** {@code kind}'s seconds in a client's {@code cpu_s: jit=0.64 loop=0.86 ... wakes:} report; 0 if absent. */
    static double threadSeconds(String report, String kind) {
        int from = report.indexOf("cpu_s: ");
        int to = report.indexOf(" wakes:", from);
        for (String kv : report.substring(from + 7, to < 0 ? report.length() : to).strip().split(" ")) {
            int eq = kv.indexOf('=');
            if (eq > 0 && kv.substring(0, eq).equals(kind)) return Double.parseDouble(kv.substring(eq + 1));
        }
        return 0;
    }

    /** {@code a / b} of one figure; for rows/s pass the walls the other way round (b's wall over a's). */
    private static void ratio(PrintStream out, String name, Map<String, Summary> m, String a, String b,
                              ToDoubleFunction<Summary> f, String target) {
        Summary sa = m.get(a);
        Summary sb = m.get(b);
        if (sa == null || sb == null) {
            out.printf("   %-44s %8s     (%s or %s not run)%n", name, "n/a", a, b);
            return;
        }
        out.printf("   %-44s %8.2fx   target %s%n", name, f.applyAsDouble(sa) / f.applyAsDouble(sb), target);
    }

    /** Every run, one line each: the input of benchmarks/charts.py --drain. */
    static void writeTsv(Outcome o, Path file) throws IOException {
        StringBuilder b = new StringBuilder("# server\t").append(o.serverVersion()).append("\trows\t").append(o.rows()).append('\n');
        b.append("client\tphase\tround\trows\twall_s\tuser_s\tsys_s\tpeak_rss_kb\n");
        for (Run r : o.runs()) {
            long rows = r.rows() >= 0 ? r.rows() : (r.phase().equals("drain") ? o.rows() : 1);
            b.append(r.client()).append('\t').append(r.phase()).append('\t').append(r.round()).append('\t').append(rows)
                    .append('\t').append(r.result().wallSeconds()).append('\t').append(r.result().userSeconds())
                    .append('\t').append(r.result().sysSeconds()).append('\t').append(r.result().peakRssKb()).append('\n');
        }
        if (file.getParent() != null) Files.createDirectories(file.getParent());
        Files.writeString(file, b);
    }
}
