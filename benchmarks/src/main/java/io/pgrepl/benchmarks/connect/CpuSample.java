package io.pgrepl.benchmarks.connect;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.HashMap;
import java.util.Map;

/**
 * CPU time of this JVM at one instant: the whole process (OperatingSystemMXBean, every thread
 * including the broker's, the JIT's and the GC's) and each live Java thread (ThreadMXBean, user+sys),
 * so that a run's delta can be split by who spent it. A thread that ends during a run loses its time
 * from the per-thread split (not from the process total); the connectors' threads live until the
 * connector is deleted, which is after the end sample.
 */
record CpuSample(long processNanos, Map<Long, Long> threadNanos, Map<Long, String> threadNames) {
    private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

    static CpuSample take() {
        Map<Long, Long> cpu = new HashMap<>();
        Map<Long, String> names = new HashMap<>();
        long[] ids = THREADS.getAllThreadIds();
        for (ThreadInfo info : THREADS.getThreadInfo(ids)) {
            if (info == null) continue;
            long t = THREADS.getThreadCpuTime(info.getThreadId());
            if (t < 0) continue;
            cpu.put(info.getThreadId(), t);
            names.put(info.getThreadId(), info.getThreadName());
        }
        long process = ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
                .getProcessCpuTime();
        return new CpuSample(process, cpu, names);
    }

    /**
     * Seconds spent between {@code start} and this sample, by kind, for the connector (worker
     * connector name {@code name}) that ran in between:
     * <ul>
     *   <li>{@code task}: the worker's task thread ({@code task-thread-NAME-0}): the task's
     *       {@code poll()}, the converters, the producer's {@code send()};</li>
     *   <li>{@code own}: threads the connector started itself ({@code debezium-*}: Debezium's
     *       streaming/snapshot coordinator, which reads the replication stream through pgjdbc and
     *       queues records; {@code pgrepl-*}: pgrepl's Netty event loop and COPY threads);</li>
     *   <li>{@code producer}: the task's producer I/O thread;</li>
     *   <li>{@code rest}: everything else among Java threads (the broker, the worker's herder, the
     *       harness's offset polling);</li>
     *   <li>{@code process}: the whole JVM, including JIT compiler and GC threads.</li>
     * </ul>
     */
    Map<String, Double> since(CpuSample start, String name) {
        Map<String, Double> by = new HashMap<>();
        for (Map.Entry<Long, Long> e : threadNanos.entrySet()) {
            long delta = e.getValue() - start.threadNanos.getOrDefault(e.getKey(), 0L);
            by.merge(kind(threadNames.get(e.getKey()), name), delta / 1e9, Double::sum);
        }
        by.put("process", (processNanos - start.processNanos) / 1e9);
        for (String k : new String[] {"task", "own", "producer", "rest"}) by.putIfAbsent(k, 0.0);
        by.put("connector", by.get("task") + by.get("own") + by.get("producer"));
        return by;
    }

    /**
     * The {@code rest} split further: CPU seconds by thread name with its digits folded (the broker's
     * request handlers add up as one), biggest first, plus {@code (not a Java thread)}: the process's
     * time that no live Java thread accounts for (GC and JIT threads, threads that ended).
     */
    String restBreakdown(CpuSample start, String name, int top) {
        Map<String, Double> by = new HashMap<>();
        double threads = 0;
        for (Map.Entry<Long, Long> e : threadNanos.entrySet()) {
            double s = (e.getValue() - start.threadNanos.getOrDefault(e.getKey(), 0L)) / 1e9;
            threads += s;
            String thread = threadNames.get(e.getKey());
            if (kind(thread, name).equals("rest")) by.merge(thread.replaceAll("[0-9]+", "N"), s, Double::sum);
        }
        by.put("(not a Java thread)", (processNanos - start.processNanos) / 1e9 - threads);
        StringBuilder b = new StringBuilder();
        by.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed()).limit(top)
                .forEach(e -> b.append(String.format("%n           %7.2f s  %s", e.getValue(), e.getKey())));
        return b.toString();
    }

    static String kind(String thread, String connector) {
        if (thread.startsWith("task-thread-" + connector + "-")) return "task";
        if (thread.startsWith("debezium-") || thread.startsWith("pgrepl-")) return "own";
        if (thread.contains("connector-producer-" + connector + "-")) return "producer";
        return "rest";
    }
}
