package io.pgrepl.it.connect;

import static io.pgrepl.it.connect.Await.await;
import static io.pgrepl.it.connect.Await.failure;
import static io.pgrepl.it.connect.ConnectMatrixTest.cfg;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicContainer.dynamicContainer;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import io.pgrepl.client.PgClient;
import io.pgrepl.client.PgClientException;
import io.pgrepl.client.PgConnection;
import io.pgrepl.client.ProtocolVersion;
import io.pgrepl.client.config.SslMode;
import io.pgrepl.testkit.AuthMethod;
import io.pgrepl.testkit.PgServer;
import io.pgrepl.testkit.PgVersions;
import io.pgrepl.testkit.TlsOptions;
import io.pgrepl.testkit.secrets.TestSecrets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.TestFactory;

/**
 * min/max_protocol_version against every major of {@code -Dpg.versions}: PG18 accepts 3.2 and sends
 * a 32-byte cancel key; older servers answer NegotiateProtocolVersion with minor 0. Also SCRAM with
 * a raised {@code scram_iterations} (PG16+), whose key derivation leaves the event loop.
 */
class ProtocolNegotiationTest {

    @TestFactory
    Stream<DynamicNode> protocolMatrix() {
        return PgVersions.matrix().stream().map(v -> dynamicContainer("PG " + v, List.of(dynamicTest("3.0 default, 3.2 requested, 3.2 required", () -> {
            try (PgServer s = PgServer.builder().version(v).auth(AuthMethod.SCRAM_SHA_256).tls(TlsOptions.rsaSha256()).start()) {
                // Default: 3.0 as libpq 18, whatever the server could do.
                try (PgConnection c = await(PgConnection.connect(cfg(s, s.superuser(), SslMode.DISABLE).build()))) {
                    assertEquals(ProtocolVersion.V3_0, c.protocolVersion());
                    assertEquals(4, c.cancelKeyLength());
                }
                for (SslMode mode : List.of(SslMode.DISABLE, SslMode.REQUIRE)) {
                    try (PgConnection c = await(PgConnection.connect(cfg(s, s.superuser(), mode)
                            .maxProtocolVersion(ProtocolVersion.V3_2).build()))) {
                        if (v >= 18) {
                            assertEquals(ProtocolVersion.V3_2, c.protocolVersion());
                            assertEquals(32, c.cancelKeyLength());
                        } else {
                            assertEquals(ProtocolVersion.V3_0, c.protocolVersion(), "downgraded by NegotiateProtocolVersion");
                            assertEquals(4, c.cancelKeyLength());
                        }
                        assertEquals(List.of(), c.unsupportedProtocolOptions());
                        cancelRunningQuery(c);
                    }
                }
                // The same through the libpq keywords.
                String url = s.url(s.superuser(), "postgres") + "?sslmode=disable&min_protocol_version=3.2";
                CompletionStage<PgConnection> stage = PgConnection.connect(url);
                if (v >= 18) {
                    try (PgConnection c = await(stage)) {
                        assertEquals(ProtocolVersion.V3_2, c.protocolVersion());
                    }
                } else {
                    PgClientException e = assertInstanceOf(PgClientException.class, failure(stage));
                    assertEquals(PgClientException.Kind.UNSUPPORTED_BY_SERVER, e.kind());
                    assertEquals("server only supports protocol version 3.0, but min_protocol_version was set to 3.2", e.getMessage());
                }
            }
        }))));
    }

    /** CancelRequest carries whatever key the server sent (4 or 32 bytes); 57014 proves it matched. */
    static void cancelRunningQuery(PgConnection c) throws Exception {
        CompletionStage<?> sleep = c.query("SELECT pg_sleep(60)");
        try (PgConnection watcher = await(PgConnection.connect(c.config().toBuilder().replication(io.pgrepl.client.ReplicationMode.NONE)
                .maxProtocolVersion(null).minProtocolVersion(ProtocolVersion.V3_0).build()))) {
            String active = "SELECT count(*) FROM pg_stat_activity WHERE pid = " + c.backendPid()
                    + " AND state = 'active' AND query LIKE 'SELECT pg_sleep%'";
            // Cancel only once the server runs the query: a cancel that arrives before it is lost.
            int polls = 0;
            while (!await(watcher.query(active)).singleRow().get(0).equals("1")) {
                assertTrue(++polls < 1200, "the query never showed up as active in pg_stat_activity");
                Thread.sleep(50);
            }
        }
        await(c.cancel());
        Await.serverError(sleep, "57014");
        assertEquals("2", await(c.query("SELECT 2")).singleRow().get(0));
    }

    private static final String SLOW_PASSWORD = "slow-scram-pw-Jt6vQ1";

    /**
     * With a raised scram_iterations, the client's PBKDF2 must not run on the event loop: another
     * connection on the same single-thread loop completes round trips <em>while</em> the
     * derivation runs. "While" is observed, not timed: a round trip counts only if a thread is
     * inside {@code ScramSha256Client.pbkdf2} both before it starts and after it completes (one
     * slow login, so one derivation). On the event loop, no round trip could complete in there.
     */
    @TestFactory
    Stream<DynamicNode> highScramIterations() {
        TestSecrets.register(SLOW_PASSWORD);
        return PgVersions.matrix().stream().filter(v -> v >= 16).map(v -> dynamicTest("PG " + v + ": scram_iterations=1000000", () -> {
            try (PgServer s = PgServer.builder().version(v).auth(AuthMethod.SCRAM_SHA_256).start();
                 PgClient client = PgClient.create(1)) {
                s.sql("postgres", "SET scram_iterations = 1000000; CREATE ROLE slow_scram LOGIN PASSWORD '" + SLOW_PASSWORD + "'");
                try (PgConnection admin = await(client.connect(cfg(s, s.superuser(), SslMode.DISABLE).build()))) {
                    assertTrue(await(admin.query("SELECT rolpassword FROM pg_authid WHERE rolname = 'slow_scram'"))
                            .singleRow().get(0).startsWith("SCRAM-SHA-256$1000000:"));
                    var slowCfg = cfg(s, s.superuser(), SslMode.DISABLE).user("slow_scram").password(SLOW_PASSWORD)
                            .connectTimeout(Duration.ofSeconds(120)).build();
                    CompletableFuture<PgConnection> slow = client.connect(slowCfg).toCompletableFuture();
                    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                    while (!derivationRunning()) {
                        assertTrue(System.nanoTime() < deadline && !slow.isDone(), "the key derivation was never seen running");
                        Thread.sleep(1);
                    }
                    int during = 0;
                    while (derivationRunning()) {
                        await(admin.query("SELECT 1"));
                        if (derivationRunning()) during++;
                    }
                    assertTrue(during >= 3, "round trips on the same event loop during the derivation: " + during);
                    try (PgConnection c = await(slow)) {
                        assertEquals("slow_scram", await(c.query("SELECT current_user")).singleRow().get(0));
                        assertEquals(admin.eventLoop(), c.eventLoop(), "one event loop for both");
                    }
                }
            }
        }));
    }

    /** True while some thread is inside the client's PBKDF2. */
    private static boolean derivationRunning() {
        for (StackTraceElement[] stack : Thread.getAllStackTraces().values()) {
            for (StackTraceElement f : stack) {
                if (f.getMethodName().equals("pbkdf2") && f.getClassName().equals("io.pgrepl.client.internal.auth.ScramSha256Client")) {
                    return true;
                }
            }
        }
        return false;
    }
}
