package io.pgrepl.testkit;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps postgres processes from outliving their JVM: a shutdown hook stops what is still running,
 * and the first server of a JVM reaps servers whose owning JVM died without running its hook.
 */
final class ServerRegistry {
    static final String OWNER_FILE = "owner.pid";
    static final String HOME_FILE = "pg.home";
    private static final Logger LOG = LoggerFactory.getLogger(ServerRegistry.class);
    private static final Set<EmbeddedPgServer> LIVE = ConcurrentHashMap.newKeySet();
    private static boolean initialized;

    private ServerRegistry() {}

    static synchronized void init() {
        if (initialized) {
            return;
        }
        initialized = true;
        Runtime.getRuntime().addShutdownHook(new Thread(ServerRegistry::closeAll, "pgrepl-testkit-shutdown"));
        reapOrphans();
    }

    static void register(EmbeddedPgServer server) {
        LIVE.add(server);
    }

    static void unregister(EmbeddedPgServer server) {
        LIVE.remove(server);
    }

    static int liveCount() {
        return LIVE.size();
    }

    private static void closeAll() {
        for (EmbeddedPgServer server : LIVE) {
            try {
                server.emergencyClose();
            } catch (RuntimeException e) {
                // keep going: the other servers must stop too
            }
        }
    }

    static OptionalLong postmasterPid(Path dataDir) {
        try {
            List<String> lines = Files.readAllLines(dataDir.resolve("postmaster.pid"), StandardCharsets.US_ASCII);
            return lines.isEmpty() ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(lines.get(0).trim()));
        } catch (IOException | NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /** Line 8 of postmaster.pid is "ready" once the server accepts connections (PostgreSQL 10+). */
    static boolean postmasterReady(Path dataDir, Process launched) {
        try {
            List<String> lines = Files.readAllLines(dataDir.resolve("postmaster.pid"), StandardCharsets.US_ASCII);
            if (lines.size() < 8 || !lines.get(7).trim().equals("ready")) {
                return false;
            }
            // A pid file left by a killed predecessor must not count: the pid must be ours
            // (setpriv execs postgres; runuser forks it).
            long pid = Long.parseLong(lines.get(0).trim());
            return pid == launched.pid() || launched.descendants().anyMatch(d -> d.pid() == pid);
        } catch (IOException | NumberFormatException e) {
            return false;
        }
    }

    private static void reapOrphans() {
        Path servers = KitDirs.servers();
        try (Stream<Path> dirs = Files.list(servers)) {
            for (Path dir : (Iterable<Path>) dirs::iterator) {
                if (Files.isDirectory(dir) && isOrphan(dir)) {
                    reap(dir);
                }
            }
        } catch (IOException | RuntimeException e) {
            LOG.debug("could not scan {} for orphaned servers: {}", servers, e.toString());
        }
    }

    private static boolean isOrphan(Path dir) throws IOException {
        Path owner = dir.resolve(OWNER_FILE);
        if (!Files.exists(owner)) {
            // Another JVM may be creating it right now; only old ones are abandoned.
            return Files.getLastModifiedTime(dir).toInstant().isBefore(Instant.now().minus(Duration.ofMinutes(10)));
        }
        try {
            long pid = Long.parseLong(Files.readString(owner).trim());
            return ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true);
        } catch (NumberFormatException e) {
            return true;
        }
    }

    private static void reap(Path dir) {
        Path data = dir.resolve("data");
        OptionalLong pid = postmasterPid(data);
        if (pid.isPresent() && ProcessHandle.of(pid.getAsLong()).filter(ServerRegistry::isPostgres).isPresent()) {
            LOG.warn("stopping orphaned PostgreSQL (pid {}) in {}", pid.getAsLong(), dir);
            try {
                Path home = Paths.get(Files.readString(dir.resolve(HOME_FILE)).trim());
                Processes.run(ServerUser.get().command(List.of(home.resolve("bin/pg_ctl").toString(), "stop", "-D",
                        data.toString(), "-m", "immediate", "-w", "-t", "10", "-s")), dir, null, Duration.ofSeconds(30));
            } catch (IOException | RuntimeException e) {
                LOG.debug("pg_ctl stop of orphan failed: {}", e.toString());
            }
            ProcessHandle.of(pid.getAsLong()).filter(ServerRegistry::isPostgres).ifPresent(p -> {
                p.destroyForcibly();
                p.onExit().join();
            });
        }
        EmbeddedPgServer.deleteQuietly(dir);
    }

    /** A recycled pid must not get killed. */
    private static boolean isPostgres(ProcessHandle p) {
        return p.isAlive() && p.info().command().map(c -> c.endsWith("/postgres")).orElse(true);
    }
}
