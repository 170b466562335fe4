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

    private static String kind(String comm) {
        if (comm.startsWith("C1 Compiler") || comm.startsWith("C2 Compiler")) return "jit";
        if (comm.startsWith("GC ") || comm.startsWith("G1 ") || comm.startsWith("VM Thread")) return "gc+vm";
        if (comm.startsWith("pgrepl-io") || comm.startsWith("pgrepl-client")) return "loop"; // pgrepl's event loops
        if (comm.startsWith("pgrepl-flow")) return "flow"; // the reactive face's delivery thread
        if (comm.equals("java") || comm.equals("main")) return "main";
        return "other";
    }
}
