package io.pgrepl.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Proves a closed server left no process and no files. */
final class Leftovers {
    private final Path serverDir;
    private final Path dataDir;
    private final List<ProcessHandle> processes = new ArrayList<>();

    private Leftovers(EmbeddedPgServer server) {
        this.serverDir = server.serverDir();
        this.dataDir = server.dataDir();
        long pid = server.postmasterPid().orElseThrow(() -> new AssertionError("no postmaster.pid while running"));
        ProcessHandle postmaster = ProcessHandle.of(pid).orElseThrow(() -> new AssertionError("postmaster gone"));
        processes.add(postmaster);
        processes.addAll(postmaster.descendants().toList());
    }

    /** Call while the server runs. */
    static Leftovers before(PgServer server) {
        Leftovers l = new Leftovers((EmbeddedPgServer) server);
        assertTrue(l.processes.size() > 1, "a running postmaster has child processes");
        assertFalse(postgresProcessesUsing(l.dataDir).isEmpty(), "/proc shows the postmaster with its data dir");
        return l;
    }

    /** Call after close(). */
    void assertGone() {
        for (ProcessHandle p : processes) {
            assertFalse(p.isAlive(), "process " + p.pid() + " survived close()");
        }
        assertEquals(List.of(), postgresProcessesUsing(dataDir), "postgres processes still using " + dataDir);
        assertFalse(Files.exists(serverDir), serverDir + " survived close()");
    }

    /** Pids of processes whose command line names {@code dataDir}. */
    static List<Long> postgresProcessesUsing(Path dataDir) {
        List<Long> pids = new ArrayList<>();
        try (Stream<Path> procs = Files.list(Paths.get("/proc"))) {
            for (Path proc : (Iterable<Path>) procs::iterator) {
                String name = proc.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                try {
                    String cmdline = new String(Files.readAllBytes(proc.resolve("cmdline")), StandardCharsets.UTF_8)
                            .replace('\0', ' ');
                    if (cmdline.contains("postgres") && cmdline.contains(dataDir.toString())) {
                        pids.add(Long.parseLong(name));
                    }
                } catch (IOException e) {
                    // the process ended while we looked
                }
            }
        } catch (IOException e) {
            throw new AssertionError("cannot list /proc", e);
        }
        return pids;
    }
}
