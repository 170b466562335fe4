package io.pgrepl.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.pgrepl.client.config.HostSpec;
import io.pgrepl.client.config.LoadBalanceHosts;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Multi-host attempts against FAKE backends ({@link FakeBackend}): password prompts per host
 * and rejections on every host, which no pair of real servers in the kit shows on demand with
 * different passwords. Real-server behaviour (standbys, dead hosts, failover) is in
 * integration-tests, package {@code io.pgrepl.it.ha}.
 */
class HostSelectionTest {

    /** Asks for a cleartext password, records it, then accepts or rejects it. */
    private static FakeBackend passwordHost(AtomicReference<String> received, boolean accept) throws Exception {
        return new FakeBackend((in, out) -> {
            FakeBackend.readUntyped(in);
            out.write(FakeBackend.auth(3, new byte[0]));
            out.flush();
            byte[] p = FakeBackend.readTyped(in);
            received.set(new String(p, 1, p.length - 2, StandardCharsets.UTF_8));
            out.write(accept ? FakeBackend.startupOk("17.6") : FakeBackend.msg('E', FakeBackend.fields(
                    "S", "FATAL", "V", "FATAL", "C", "28P01", "M", "password authentication failed for user \"alice\"")));
        });
    }

    private static ConnectionConfig.Builder twoHosts(FakeBackend a, FakeBackend b) {
        return a.config().password(null).hosts(List.of(new HostSpec("127.0.0.1", null, a.port()),
                new HostSpec("127.0.0.1", null, b.port())));
    }

    @Test
    void passwordFileIsLookedUpPerHost(@TempDir Path dir) throws Exception {
        assertNull(System.getenv("PGPASSWORD"), "PGPASSWORD would win over the password file; the client module's"
                + " surefire configuration removes it from the test JVM");
        AtomicReference<String> first = new AtomicReference<>();
        AtomicReference<String> second = new AtomicReference<>();
        try (FakeBackend a = passwordHost(first, false); FakeBackend b = passwordHost(second, true)) {
            Path pgpass = dir.resolve("pgpass");
            Files.writeString(pgpass, "127.0.0.1:" + a.port() + ":db:alice:pw-one\n127.0.0.1:" + b.port() + ":db:alice:pw-two\n");
            Files.setPosixFilePermissions(pgpass, PosixFilePermissions.fromString("rw-------"));
            try (PgConnection c = PgConnection.connect(twoHosts(a, b).passFile(pgpass).build())
                    .toCompletableFuture().get(10, TimeUnit.SECONDS)) {
                assertEquals(b.port(), c.config().port(), "the connection names the host it reached");
                assertEquals(new HostSpec("127.0.0.1", null, b.port()), c.server());
            }
            assertEquals("pw-one", first.get());
            assertEquals("pw-two", second.get());
        }
    }

    @Test
    void everyHostRejectingThePasswordIsTheServersTypedError() throws Exception {
        AtomicReference<String> first = new AtomicReference<>();
        AtomicReference<String> second = new AtomicReference<>();
        try (FakeBackend a = passwordHost(first, false); FakeBackend b = passwordHost(second, false)) {
            Throwable t = assertThrows(ExecutionException.class, () -> PgConnection.connect(twoHosts(a, b).password("pw-secret")
                    .build()).toCompletableFuture().get(10, TimeUnit.SECONDS)).getCause();
            // Deterministic on every host: the server's own error (not a retryable connection error),
            // the first host's one attached.
            PgException e = assertInstanceOf(PgException.class, t);
            assertEquals("28P01", e.sqlState());
            assertEquals(1, e.getSuppressed().length);
            assertEquals("28P01", assertInstanceOf(PgException.class, e.getSuppressed()[0]).sqlState());
            // The password reached both servers (so the client held it while building the error), and
            // nothing the caller can print shows it: message, toString, causes, suppressed, stack.
            assertEquals("pw-secret", first.get());
            assertEquals("pw-secret", second.get());
            java.io.StringWriter rendered = new java.io.StringWriter();
            e.printStackTrace(new java.io.PrintWriter(rendered));
            assertTrue(rendered.toString().contains("password authentication failed"), rendered.toString());
            assertFalse(rendered.toString().contains("pw-secret"), rendered.toString());
            assertFalse(twoHosts(a, b).password("pw-secret").build().toString().contains("pw-secret"));
        }
    }

    @Test
    void randomOrderIsAPermutationAndDisableKeepsTheOrder() {
        List<HostSpec> hosts = List.of(new HostSpec("a", null, 1), new HostSpec("b", null, 2), new HostSpec("c", null, 3));
        assertEquals(hosts, HostSelection.order(hosts, LoadBalanceHosts.DISABLE, new Random(1)));
        Set<HostSpec> firsts = new HashSet<>();
        Random random = new Random(42);
        boolean reordered = false;
        for (int i = 0; i < 60; i++) {
            List<HostSpec> o = HostSelection.order(hosts, LoadBalanceHosts.RANDOM, random);
            assertEquals(Set.copyOf(hosts), Set.copyOf(o));
            assertEquals(3, o.size());
            firsts.add(o.get(0));
            reordered |= !o.equals(hosts);
        }
        assertEquals(Set.copyOf(hosts), firsts, "every host comes first sometimes");
        assertTrue(reordered);
    }
}
