package io.pgrepl.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stops one server's postmaster by the data directory: pg_ctl first, then the launcher's process
 * tree, then the pid named in postmaster.pid if it is still ours. Separate from
 * {@link EmbeddedPgServer} because stopping must work from any state the server can be left in
 * (half started, wrapper dead, stale pid file, the JVM shutting down), which is its own set of rules.
 */
final class PostmasterStopper {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedPgServer.class);

    private final PgBinaries.Installation pg;
    private final ServerUser user;
    private final Path serverDir;
    private final Path dataDir;

    PostmasterStopper(PgBinaries.Installation pg, ServerUser user, Path serverDir, Path dataDir) {
        this.pg = pg;
        this.user = user;
        this.serverDir = serverDir;
        this.dataDir = dataDir;
    }

    /**
     * Stops the server whatever state it is in. The launched process may be a wrapper (runuser
     * forks postgres) that died on its own: the pid file, not the wrapper, says whether a
     * postmaster may still be running.
     *
     * @param first    the pg_ctl mode to try first (fast falls back to immediate)
     * @param launcher the process that launched the postmaster, or null
     * @param port     for log lines
     */
    void shutDown(StopMode first, Process launcher, int port) {
        Process child = launcher;
        boolean launcherAlive = child != null && child.isAlive();
        if (!launcherAlive && !Files.exists(dataDir.resolve("postmaster.pid"))) {
            return;
        }
        // Fast shutdown waits for walsenders to flush to their clients; a stuck client must not hang close().
        if (!pgCtlStop(first, Duration.ofSeconds(10)).ok() && first != StopMode.IMMEDIATE) {
            LOG.warn("fast shutdown of port {} did not finish, stopping immediately", port);
            pgCtlStop(StopMode.IMMEDIATE, Duration.ofSeconds(10));
        }
        if (launcherAlive && !PostmasterProcesses.awaitExit(child, Duration.ofSeconds(5))) {
            LOG.warn("postmaster {} still alive, killing it", child.pid());
            PostmasterProcesses.killTree(child);
            PostmasterProcesses.awaitExit(child, Duration.ofSeconds(10));
        }
        killByPidFile(port);
    }

    /** Last resort when pg_ctl could not stop the postmaster named in the pid file (or the file is stale); {@code port} for log lines. */
    void killByPidFile(int port) {
        OptionalLong pid = ServerRegistry.postmasterPid(dataDir);
        if (pid.isEmpty()) {
            return;
        }
        Optional<ProcessHandle> handle = ProcessHandle.of(pid.getAsLong()).filter(h -> PostmasterProcesses.isOurPostmaster(h, dataDir));
        if (handle.isEmpty()) {
            return; // stale pid file, or a recycled pid that is not ours to kill
        }
        if (Files.exists(dataDir.resolve("postmaster.pid"))) {
            pgCtlStop(StopMode.IMMEDIATE, Duration.ofSeconds(10));
        }
        ProcessHandle p = handle.get();
        if (PostmasterProcesses.isOurPostmaster(p, dataDir)) {
            LOG.warn("postmaster {} of port {} survived pg_ctl stop, killing it", p.pid(), port);
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            try {
                p.onExit().get(10, java.util.concurrent.TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                LOG.warn("postmaster {} did not exit after SIGKILL", p.pid());
            }
        }
    }

    Processes.Result pgCtlStop(StopMode mode, Duration wait) {
        return Processes.run(user.command(List.of(pg.tool("pg_ctl"), "stop", "-D", dataDir.toString(), "-m",
                mode.pgCtlMode(), "-w", "-t", Long.toString(wait.toSeconds()), "-s")), serverDir, null,
                wait.plusSeconds(20));
    }
}
