package io.pgrepl.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** Process, port and log helpers of {@link EmbeddedPgServer} that need none of its state. */
final class PostmasterProcesses {
    private PostmasterProcesses() {
    }

    /** Children first: killing only a runuser wrapper would orphan the postmaster it forked. */
    static void killTree(Process process) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    /** A recycled pid must not get killed: ours runs postgres with this data directory. */
    static boolean isOurPostmaster(ProcessHandle p, Path dataDir) {
        ProcessHandle.Info info = p.info();
        return p.isAlive() && info.command().map(c -> c.endsWith("/postgres")).orElse(true)
                && info.arguments().map(a -> List.of(a).contains(dataDir.toString())).orElse(true);
    }

    static boolean awaitExit(Process process, Duration wait) {
        try {
            return process.waitFor(wait.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    static int countInLog(Path logFile, String needle) {
        try {
            String log = Files.readString(logFile, StandardCharsets.UTF_8);
            int count = 0;
            for (int i = log.indexOf(needle); i >= 0; i = log.indexOf(needle, i + 1)) {
                count++;
            }
            return count;
        } catch (IOException e) {
            return 0;
        }
    }

    static String logTail(Path logFile) {
        try {
            String log = Files.readString(logFile, StandardCharsets.UTF_8);
            return log.length() > 8000 ? log.substring(log.length() - 8000) : log;
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on 127.0.0.1", e);
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }
}
