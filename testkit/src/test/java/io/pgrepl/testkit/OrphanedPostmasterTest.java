package io.pgrepl.testkit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * When the test kit runs as root through {@code runuser}, the process it launched is a wrapper
 * that forks postgres. If that wrapper dies, close() must still stop the postmaster named in the
 * pid file. The dead wrapper is simulated by swapping in an exited process, which works whichever
 * of setpriv/runuser this machine uses.
 */
class OrphanedPostmasterTest {
    @Test
    void closeStopsThePostmasterEvenWhenTheLaunchedProcessIsGone() throws Exception {
        PgServer server = PgServer.builder().start();
        OptionalLong pid = ServerRegistry.postmasterPid(server.dataDir());
        try {
            assertTrue(server instanceof EmbeddedPgServer, server.getClass().getName());
            assertTrue(pid.isPresent());
            Process exited = new ProcessBuilder("true").start();
            assertTrue(exited.waitFor(10, TimeUnit.SECONDS));
            Field launched = EmbeddedPgServer.class.getDeclaredField("postmaster");
            launched.setAccessible(true);
            launched.set(server, exited);

            server.close();

            ProcessHandle postmaster = ProcessHandle.of(pid.getAsLong()).orElse(null);
            if (postmaster != null) {
                postmaster.onExit().completeOnTimeout(postmaster, 10, TimeUnit.SECONDS).join();
            }
            assertFalse(postmaster != null && postmaster.isAlive(), "postmaster " + pid + " left running");
        } finally {
            server.close();
            pid.stream().mapToObj(ProcessHandle::of).forEach(h -> h.filter(p -> p.info().command()
                    .map(c -> c.endsWith("/postgres")).orElse(false)).ifPresent(ProcessHandle::destroyForcibly));
        }
    }
}
