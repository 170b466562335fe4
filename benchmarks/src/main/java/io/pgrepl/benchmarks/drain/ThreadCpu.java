package io.pgrepl.benchmarks.drain;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * CPU time of this process's live threads by kind, from {@code /proc/self/task/<tid>/stat}: where a
 * client's CPU goes between the JIT compilers, the garbage collector, the event loop and the rest.
 * JFR's execution samples cannot show this (they see only Java frames of Java threads).
 */
final class ThreadCpu {
    private ThreadCpu() {}

    /** {@code kind=seconds} pairs (user+sys), e.g. {@code jit=0.81 gc=0.12 loop=1.90 main=0.20 other=0.05}. */
    static String summary() {
        Map<String, Long> ticks = new TreeMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                String stat;
                try {
                    stat = Files.readString(t.resolve("stat"));
                } catch (IOException gone) {
                    continue;
                }
                // pid (comm) state ... field 14 utime, 15 stime; comm may hold spaces, so split after ')'.
                String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                long used = Long.parseLong(f[11]) + Long.parseLong(f[12]);
                ticks.merge(kind(name), used, Long::sum);
            }
        } catch (IOException e) {
            return "threads=unavailable";
        }
        StringBuilder b = new StringBuilder();
        ticks.forEach((k, v) -> b.append(b.length() == 0 ? "" : " ").append(k).append('=')
                .append(String.format("%.2f", v / 100.0))); // USER_HZ is 100 on Linux
        return b.toString();
    }

    /**
     * Voluntary context switches by thread kind ({@code /proc/self/task/<tid>/status}): each is a thread
     * that parked and was woken again, so the flow thread's count is its wake-ups.
     */
    static String wakes() {
        Map<String, Long> n = new TreeMap<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/self/task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                try {
                    String name = Files.readString(t.resolve("comm")).strip();
                    for (String line : Files.readAllLines(t.resolve("status"))) {
                        if (line.startsWith("voluntary_ctxt_switches:")) {
                            n.merge(kind(name), Long.parseLong(line.substring(24).strip()), Long::sum);
                        }
                    }
                } catch (IOException gone) {
                    // the thread ended meanwhile
                }
            }
        } catch (IOException e) {
            return "unavailable";
        }
        StringBuilder b = new StringBuilder();
        n.forEach((k, v) -> b.append(b.length() == 0 ? "" : " ").append(k).append('=').append(v));
        return b.toString();
    }

    /**
     * The Java heap against the process's RSS: the peak used and committed of each heap pool (MB), and
     * the collector's count of collections, so a large RSS can be told apart from a large live set.
     */
    static String heap() {
        StringBuilder b = new StringBuilder();
        for (var p : java.lang.management.ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getType() != java.lang.management.MemoryType.HEAP) continue;
            var peak = p.getPeakUsage();
            b.append(b.length() == 0 ? "" : " ").append(p.getName().replace(' ', '_')).append(String.format("=%.0f/%.0f",
                    peak.getUsed() / 1048576.0, peak.getCommitted() / 1048576.0));
        }
        for (var g : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) {
            b.append(' ').append(g.getName().replace(' ', '_')).append("_gcs=").append(g.getCollectionCount());
        }
        return b.toString();
    }

    private static String kind(String comm) {
        if (comm.startsWith("C1 Compiler") || comm.startsWith("C2 Compiler")) return "jit";
        if (comm.startsWith("GC ") || comm.startsWith("G1 ") || comm.startsWith("VM Thread")) return "gc+vm";
        if (comm.startsWith("pgrepl-io") || comm.startsWith("pgrepl-client")) return "loop"; // pgrepl's event loops
        if (comm.startsWith("pgrepl-flow")) return "flow"; // the reactive face's delivery thread
        if (comm.equals("java") || comm.equals("main")) return "main";
        return "other";
    }
}
