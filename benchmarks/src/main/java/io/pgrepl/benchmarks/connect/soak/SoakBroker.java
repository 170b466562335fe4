package io.pgrepl.benchmarks.connect.soak;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Uuid;

/**
 * One KRaft broker (combined broker and controller) in a JVM of its own, {@code kafka.Kafka} on
 * this JVM's classpath, with fixed ports and a log directory that outlives it: {@link #restart()}
 * stops it (SIGTERM: a controlled shutdown) and starts it again on the same address and data, as an
 * operator's restart does. The test kit's in-process brokers come back on new ports, which clients
 * bootstrapped with the old ones never find.
 */
final class SoakBroker implements AutoCloseable {
    private final Path dir;
    private final Path config;
    final int port;
    private Process process;
    private int incarnation;

    private SoakBroker(Path dir, Path config, int port) {
        this.dir = dir;
        this.config = config;
        this.port = port;
    }

    static SoakBroker start(Path dir) throws Exception {
        Files.createDirectories(dir);
        int port = freePort();
        int controller = freePort();
        Properties p = new Properties();
        p.put("process.roles", "broker,controller");
        p.put("node.id", "1");
        p.put("controller.quorum.voters", "1@127.0.0.1:" + controller);
        p.put("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controller);
        p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
        p.put("controller.listener.names", "CONTROLLER");
        p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        p.put("inter.broker.listener.name", "PLAINTEXT");
        p.put("log.dirs", dir.resolve("data").toAbsolutePath().toString());
        p.put("offsets.topic.replication.factor", "1");
        p.put("offsets.topic.num.partitions", "5");
        p.put("transaction.state.log.replication.factor", "1");
        p.put("transaction.state.log.min.isr", "1");
        p.put("transaction.state.log.num.partitions", "5");
        p.put("group.initial.rebalance.delay.ms", "0");
        p.put("num.partitions", "1");
        Path config = dir.resolve("broker.properties");
        try (var w = Files.newBufferedWriter(config)) {
            p.store(w, "the Connect soak's broker");
        }
        Process format = new ProcessBuilder(java("512m", "kafka.tools.StorageTool", "format", "-t",
                Uuid.randomUuid().toString(), "-c", config.toString())).redirectErrorStream(true)
                .redirectOutput(dir.resolve("format.log").toFile()).start();
        if (!format.waitFor(120, TimeUnit.SECONDS) || format.exitValue() != 0) {
            throw new IllegalStateException("formatting the broker's storage failed; see " + dir.resolve("format.log"));
        }
        SoakBroker b = new SoakBroker(dir, config, port);
        b.launch();
        return b;
    }

    String bootstrap() {
        return "127.0.0.1:" + port;
    }

    /** Stops the broker (SIGTERM, controlled shutdown, up to 60 s) and starts it again; returns once it answers. */
    void restart() throws Exception {
        process.destroy();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(30, TimeUnit.SECONDS);
        }
        launch();
    }

    private void launch() throws Exception {
        Path log = dir.resolve("broker-" + incarnation++ + ".log");
        process = new ProcessBuilder(java("768m", SoakBroker.class.getName(), Long.toString(ProcessHandle.current().pid()),
                config.toString())).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "5000", AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "3000"))) {
            while (System.nanoTime() < end) {
                if (!process.isAlive()) throw new IllegalStateException("the broker exited; see " + log);
                try {
                    if (!admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty()) return;
                } catch (Exception notYet) {
                    // starting
                }
                Thread.sleep(250);
            }
        }
        throw new IllegalStateException("the broker did not answer within 120 s; see " + log);
    }

    private static List<String> java(String heap, String main, String... args) {
        List<String> cmd = new java.util.ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx" + heap, "-XX:+UseSerialGC", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp", System.getProperty("java.class.path"), main));
        cmd.addAll(List.of(args));
        return cmd;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    @Override
    public void close() {
        if (process == null) return;
        process.destroyForcibly();
        try {
            process.waitFor(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The child: {@code <parent pid> <broker properties>}; halts when the soak's JVM exits. */
    public static void main(String[] args) throws Exception {
        ProcessHandle.of(Long.parseLong(args[0])).ifPresentOrElse(
                h -> h.onExit().thenRun(() -> Runtime.getRuntime().halt(3)), () -> Runtime.getRuntime().halt(3));
        kafka.Kafka.main(new String[] {args[1]});
    }
}
