package io.pgrepl.benchmarks.connect.soak;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.connect.cli.ConnectDistributed;

/**
 * One distributed Connect worker in a JVM of its own (this JVM's classpath), so that the soak can
 * SIGKILL it. Each incarnation logs to a file of its own (Connect echoes connector configs, with
 * their passwords, in its REST log: never to the console), and writes its heap figures to
 * {@code <name>.heap} every second: the peak heap in use right after a collection (what the worker
 * really holds) and the peak in use at any time. The child halts when the soak's JVM exits.
 */
final class SoakWorker implements AutoCloseable {
    final String name;
    final int port;
    final Path log;
    final Path heap;
    private final Process process;

    private SoakWorker(String name, int port, Path log, Path heap, Process process) {
        this.name = name;
        this.port = port;
        this.log = log;
        this.heap = heap;
        this.process = process;
    }

    /** Starts an incarnation {@code name} with {@code props} (REST on 127.0.0.1, a free port); returns once REST answers. */
    static SoakWorker start(Map<String, String> props, Path dir, String name, String maxHeap) throws Exception {
        Files.createDirectories(dir);
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Properties p = new Properties();
        p.putAll(props);
        p.put("listeners", "http://127.0.0.1:" + port);
        p.put("rest.advertised.host.name", "127.0.0.1");
        p.put("rest.advertised.port", Integer.toString(port));
        Path file = dir.resolve(name + ".properties");
        try (var w = Files.newBufferedWriter(file)) {
            p.store(w, "a Connect worker of the Connect soak");
        }
        Path log = dir.resolve(name + ".log");
        Path heap = dir.resolve(name + ".heap");
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + maxHeap, "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"),
                SoakWorker.class.getName(), Long.toString(ProcessHandle.current().pid()), file.toString(), heap.toString()));
        Process proc = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        SoakWorker w = new SoakWorker(name, port, log, heap, proc);
        try {
            w.awaitRest(Duration.ofSeconds(120));
        } catch (Exception | Error e) {
            w.close();
            throw e;
        }
        return w;
    }

    private void awaitRest(Duration timeout) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest get = HttpRequest.newBuilder(URI.create(url("/connectors"))).timeout(Duration.ofSeconds(5)).build();
        long end = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < end) {
            if (!process.isAlive()) throw new IllegalStateException(name + " exited (" + process.exitValue() + "); see " + log);
            try {
                if (http.send(get, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) return;
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException(name + "'s REST API did not answer within " + timeout + "; see " + log);
    }

    String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    /** True when a Connect worker id (host:port) is this worker's. */
    boolean is(String workerId) {
        return workerId != null && workerId.endsWith(":" + port);
    }

    /** SIGKILL: no task is stopped, no offset flushed, the group is not left. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(60, TimeUnit.SECONDS)) throw new IllegalStateException(name + " survived SIGKILL");
    }

    /** {peak heap used after a collection, peak heap used} in bytes, as last written by the child; zeros if none yet. */
    long[] heapPeaks() {
        try {
            String[] f = Files.readString(heap).trim().split(" ");
            return new long[] {Long.parseLong(f[0]), Long.parseLong(f[1])};
        } catch (IOException | RuntimeException notYet) {
            return new long[2];
        }
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The child: {@code <parent pid> <worker properties> <heap file>}. */
    public static void main(String[] args) throws Exception {
        ProcessHandle.of(Long.parseLong(args[0])).ifPresentOrElse(
                h -> h.onExit().thenRun(() -> Runtime.getRuntime().halt(3)), () -> Runtime.getRuntime().halt(3));
        Path heapFile = Path.of(args[2]);
        Thread sampler = new Thread(() -> sampleHeap(heapFile), "soak-heap-sampler");
        sampler.setDaemon(true);
        sampler.start();
        ConnectDistributed.main(new String[] {args[1]});
    }

    private static void sampleHeap(Path file) {
        long peakAfterGc = 0;
        long peakUsed = 0;
        Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        while (true) {
            long used = 0;
            java.util.Set<String> heapPools = new java.util.HashSet<>();
            for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
                if (pool.getType() != MemoryType.HEAP) continue;
                heapPools.add(pool.getName());
                used += pool.getUsage().getUsed();
            }
            // The heap right after the latest collection of each collector (young and old): what survived.
            long afterGc = 0;
            for (var gc : ManagementFactory.getGarbageCollectorMXBeans()) {
                if (!(gc instanceof com.sun.management.GarbageCollectorMXBean g) || g.getLastGcInfo() == null) continue;
                long sum = 0;
                for (var e : g.getLastGcInfo().getMemoryUsageAfterGc().entrySet()) {
                    if (heapPools.contains(e.getKey())) sum += e.getValue().getUsed();
                }
                afterGc = Math.max(afterGc, sum);
            }
            peakAfterGc = Math.max(peakAfterGc, afterGc);
            peakUsed = Math.max(peakUsed, used);
            try {
                Files.writeString(tmp, peakAfterGc + " " + peakUsed + "\n");
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                Thread.sleep(1000);
            } catch (IOException ignored) {
                // the next sample tries again
            } catch (InterruptedException e) {
                return;
            }
        }
    }
}
